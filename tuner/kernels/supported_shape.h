#pragma once
// Which rows of an AITER shape table moetune's kernels implement, and the MoE problem of such a
// row. Shared by every command that turns shape rows into kernels (candidates, compile, sweep).
#include <optional>
#include <string>

#include "data/moe_problem.h"
#include "table/table_shape.h"

namespace moetune::kernels {

// The problem of `row` (tokens = the row's token count) when the kernels implement it: a8w4
// (torch.float8_e4m3fn activations, torch.float4_e2m1fn_x2 weights, QuantType.per_1x32), g1u1,
// SiLU, bf16 output, routing weight applied in stage 2, and sizes shape_error accepts.
// Otherwise nullopt and the reason in *why_not.
std::optional<data::MoeShape> supported_moe_shape(const table::TableShape& row, std::string* why_not);

}  // namespace moetune::kernels
