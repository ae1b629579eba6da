#include "kernels/shape_rows.h"

#include <algorithm>
#include <optional>

#include "common/input_error.h"
#include "kernels/supported_shape.h"
#include "table/schema.h"
#include "table/table_reader.h"
#include "table/table_shape.h"

namespace moetune::kernels {
namespace {

bool same_shape(const data::MoeShape& a, const data::MoeShape& b) {
    return a.tokens == b.tokens && a.model_dim == b.model_dim && a.inter_dim == b.inter_dim &&
           a.experts == b.experts && a.topk == b.topk;
}

void add_once(std::vector<ShapeRow>& rows, ShapeRow row) {
    const bool seen =
        std::any_of(rows.begin(), rows.end(), [&](const ShapeRow& r) { return same_shape(r.shape, row.shape); });
    if (!seen) rows.push_back(std::move(row));
}

}  // namespace

ShapeRows read_shape_rows(const std::string& path, const std::vector<int>& tokens) {
    const table::Table t = table::read_table(path);
    for (std::string_view c : table::kShapeColumns)
        if (!t.has_column(c)) throw InputError(t.file, t.header_line, "no " + std::string(c) + " column");

    if (t.rows.empty()) throw InputError(t.file, t.header_line, "no shape rows");

    ShapeRows out;
    std::vector<ShapeRow> file_shapes;
    for (const table::TableRow& row : t.rows) {
        const std::string where = t.file + ":" + std::to_string(row.line);
        std::string why;
        // A row that is not a shape (a malformed cell) is an input error, as in sweep; one the kernels
        // do not run is skipped.
        const std::optional<data::MoeShape> shape = supported_moe_shape(table::read_shape(t, row), &why);
        if (!shape) {
            out.skipped.push_back(where + ": " + why);
            continue;
        }
        // A repeated row is listed once.
        add_once(file_shapes, {where, *shape});
    }
    if (tokens.empty()) {
        out.rows = std::move(file_shapes);
        return out;
    }
    // One shape at several token counts is one shape at each --tokens value.
    for (int n : tokens)
        for (ShapeRow r : file_shapes) {
            r.shape.tokens = n;
            add_once(out.rows, std::move(r));
        }
    return out;
}

}  // namespace moetune::kernels
