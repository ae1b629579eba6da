#pragma once
// A MoeShapeKey (the library's public key) in the terms of the table and kernel layers: the same
// key text AITER's lookup dict compares (table/row_key.h), the key as log lines show it, and the
// MoE problem moetune's kernels run.
#include <optional>
#include <string>
#include <string_view>

#include "data/moe_problem.h"
#include "moetune/tuned_tables.h"

namespace moetune::runtime {

// table::lookup_key_ignoring_act_type of a row with these cells.
std::string lookup_key(const MoeShapeKey& shape, long long bucket, std::string_view gfx, int cu_num);

// "sm_90, 132, 64, 7168, 2048, 256, 8, ActivationType.Silu, ..." in the tables' column order.
std::string describe_key(const MoeShapeKey& shape, long long bucket, std::string_view gfx, int cu_num);

// The problem at `tokens` when moetune's kernels implement the shape; otherwise nullopt and the
// reason in *why_not (kernels::supported_moe_shape).
std::optional<data::MoeShape> kernel_problem(const MoeShapeKey& shape, int tokens, std::string* why_not);

}  // namespace moetune::runtime
