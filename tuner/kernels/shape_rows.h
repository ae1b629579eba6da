#pragma once
// The MoE problems of a shape table, as every command that turns shape rows into kernels reads
// them (candidates, compile, bench): each supported row at its own token count, or each distinct
// shape at each of a list of token counts. Rows moetune's kernels cannot run are reported, not fatal.
#include <string>
#include <vector>

#include "data/moe_problem.h"

namespace moetune::kernels {

struct ShapeRow {
    std::string where;  // FILE:LINE of the row the shape came from
    data::MoeShape shape;
};

struct ShapeRows {
    std::vector<ShapeRow> rows;        // in file order, each (shape, token count) once
    std::vector<std::string> skipped;  // "FILE:LINE: reason" of each row the kernels do not run
};

// tokens empty: each row at its own token count; otherwise every distinct shape of the file at each
// listed count, in the order given. Throws InputError when the file cannot be read, lacks a shape
// column, has no rows or a row that is not a shape (a malformed cell; table::read_table's errors
// included); a row the kernels do not run is skipped.
ShapeRows read_shape_rows(const std::string& path, const std::vector<int>& tokens = {});

}  // namespace moetune::kernels
