#include "table/table_shape.h"

#include "common/input_error.h"
#include "table/cell_rules.h"
#include "table/cell_value.h"
#include "table/schema.h"

namespace moetune::table {

TableShape read_shape(const Table& table, const TableRow& row) {
    for (std::string_view c : kShapeColumns) {
        if (!table.has_column(c)) throw InputError(table.file, table.header_line, "no " + std::string(c) + " column");
        if (auto problem = cell_problem(c, table.cell(row, c))) throw InputError(table.file, row.line, *problem);
    }
    // cell_problem accepted every cell, so each parse below succeeds.
    const auto integer = [&](std::string_view c) { return *parse_integer(table.cell(row, c)); };
    const auto text = [&](std::string_view c) { return std::string(table.cell(row, c)); };
    TableShape s;
    s.token = integer(col::token);
    s.model_dim = integer(col::model_dim);
    s.inter_dim = integer(col::inter_dim);
    s.expert = integer(col::expert);
    s.topk = integer(col::topk);
    s.act_type = text(col::act_type);
    s.dtype = text(col::dtype);
    s.q_dtype_a = text(col::q_dtype_a);
    s.q_dtype_w = text(col::q_dtype_w);
    s.q_type = text(col::q_type);
    s.use_g1u1 = *parse_flag(table.cell(row, col::use_g1u1));
    s.doweight_stage1 = *parse_flag(table.cell(row, col::doweight_stage1));
    return s;
}

std::array<std::string, 12> shape_cells(const TableShape& s) {
    return {std::to_string(s.token), std::to_string(s.model_dim), std::to_string(s.inter_dim),
            std::to_string(s.expert), std::to_string(s.topk),     s.act_type,
            s.dtype,                  s.q_dtype_a,                s.q_dtype_w,
            s.q_type,                 s.use_g1u1 ? "1" : "0",     s.doweight_stage1 ? "1" : "0"};
}

}  // namespace moetune::table
