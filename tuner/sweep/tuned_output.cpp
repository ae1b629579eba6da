#include "sweep/tuned_output.h"

#include "common/atomic_file.h"
#include "common/input_error.h"
#include "sweep/plan_key.h"
#include "table/check_file.h"
#include "table/keeper.h"
#include "table/row_key.h"
#include "table/schema.h"
#include "table/table_reader.h"
#include "table/table_writer.h"

namespace moetune::sweep {

TunedOutput TunedOutput::read(const std::filesystem::path& path) {
    TunedOutput out;
    if (!std::filesystem::exists(path)) {
        out.table_.file = path.string();
        out.table_.columns.assign(table::kTunedColumns.begin(), table::kTunedColumns.end());
        return out;
    }
    out.table_ = table::read_table(path);
    const table::Table& t = out.table_;
    if (t.kind() != table::TableKind::tuned)
        throw InputError(t.file, t.header_line,
                         "the output is an untuned table (no result columns); give -o a tuned table or a new file");
    for (std::string_view c : table::kTunedColumns)
        if (!t.has_column(c))
            throw InputError(t.file, t.header_line,
                             "the output has no " + std::string(c) +
                                 " column, so sweep cannot add rows to it; write to a new file and combine the two "
                                 "with `moetune merge`");
    // Its rows are kept byte for byte: one AITER could not load (extra fields) or with a cell that is
    // not what its column holds would go on into every later table.
    table::require_loadable_rows(t);
    for (std::size_t i = 0; i < t.rows.size(); ++i) out.row_of_key_.try_emplace(table::dedup_key(t, t.rows[i]), i);
    return out;
}

std::optional<double> TunedOutput::us(const std::string& key) const {
    const auto it = row_of_key_.find(key);
    if (it == row_of_key_.end()) return std::nullopt;
    return table::row_us(table_, table_.rows[it->second]);
}

void TunedOutput::put(const table::TunedRow& row) {
    // The writer formats the row; its cells are then placed under OUT's columns by name (a _tag
    // column of OUT, if any, gets an empty tag: sweep's rows carry none).
    const table::Table formatted = table::parse_table(table::format_tuned_table({row}), table_.file);
    const table::TableRow& source = formatted.rows.front();
    table::TableRow placed;
    for (const std::string& c : table_.columns) placed.cells.emplace_back(formatted.cell(source, c));
    placed.field_count = placed.cells.size();

    const std::string key = row_key(row);
    if (const auto it = row_of_key_.find(key); it != row_of_key_.end()) {
        placed.line = table_.rows[it->second].line;
        table_.rows[it->second] = std::move(placed);
        return;
    }
    row_of_key_.emplace(key, table_.rows.size());
    table_.rows.push_back(std::move(placed));
}

std::string row_key(const table::TunedRow& row) { return plan_key(row.shape, row.gfx, row.cu_num); }

void TunedOutput::write(const std::filesystem::path& path) const {
    write_file_atomically(path, table::format_table(table_));
}

}  // namespace moetune::sweep
