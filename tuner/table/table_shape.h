#pragma once
// The 12 columns of an untuned row, typed: one MoE problem at one token count. This is what
// `missing` reads from a shapes file and writes for `sweep`, and the key part of a TunedRow.
#include <array>
#include <string>

#include "table/table.h"

namespace moetune::table {

struct TableShape {
    long long token = 0;
    long long model_dim = 0;
    long long inter_dim = 0;
    long long expert = 0;
    long long topk = 0;
    std::string act_type;   // "ActivationType.Silu"
    std::string dtype;      // "torch.bfloat16"
    std::string q_dtype_a;  // "torch.float8_e4m3fn"
    std::string q_dtype_w;  // "torch.float4_e2m1fn_x2"
    std::string q_type;     // "QuantType.per_1x32"
    bool use_g1u1 = true;
    bool doweight_stage1 = false;
};

// Throws InputError(file, line) naming the first cell that is not valid (cell_rules.h).
TableShape read_shape(const Table& table, const TableRow& row);
// The 12 cells in kShapeColumns order, as AITER writes them (flags as 1/0).
std::array<std::string, 12> shape_cells(const TableShape& shape);

}  // namespace moetune::table
