#include "runtime/shape_key.h"

#include <iterator>

#include "kernels/supported_shape.h"
#include "table/row_key.h"
#include "table/schema.h"
#include "table/table_shape.h"

namespace moetune::runtime {
namespace {

table::TableShape table_shape(const MoeShapeKey& s, long long token) {
    return {token, s.model_dim, s.inter_dim, s.experts, s.topk, s.act_type, s.dtype, s.q_dtype_a, s.q_dtype_w,
            s.q_type, s.use_g1u1, s.doweight_stage1};
}

// A one-row tuned table holding the key, so keys and descriptions come from the table layer's own
// functions and compare exactly as they do for the rows read from files.
table::Table query_table(const MoeShapeKey& shape, long long bucket, std::string_view gfx, int cu_num) {
    table::Table t;
    t.columns = {std::string(table::col::gfx), std::string(table::col::cu_num)};
    t.columns.insert(t.columns.end(), table::kShapeColumns.begin(), table::kShapeColumns.end());
    t.columns.emplace_back(table::col::block_m);  // a result column: describe_key then shows gfx and cu_num
    table::TableRow row{0, t.columns.size(), {std::string(gfx), std::to_string(cu_num)}};
    const auto cells = table::shape_cells(table_shape(shape, bucket));
    row.cells.insert(row.cells.end(), cells.begin(), cells.end());
    row.cells.emplace_back();
    t.rows.push_back(std::move(row));
    return t;
}

}  // namespace

std::string lookup_key(const MoeShapeKey& shape, long long bucket, std::string_view gfx, int cu_num) {
    const table::Table t = query_table(shape, bucket, gfx, cu_num);
    return table::lookup_key_ignoring_act_type(t, t.rows.front());
}

std::string describe_key(const MoeShapeKey& shape, long long bucket, std::string_view gfx, int cu_num) {
    const table::Table t = query_table(shape, bucket, gfx, cu_num);
    return table::describe_key(t, t.rows.front());
}

std::optional<data::MoeShape> kernel_problem(const MoeShapeKey& shape, int tokens, std::string* why_not) {
    return kernels::supported_moe_shape(table_shape(shape, tokens), why_not);
}

}  // namespace moetune::runtime
