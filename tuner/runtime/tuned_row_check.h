#pragma once
// What libmoetune requires of a tuned row before it serves it, and the moetune kernels a row names.
// AITER's own families (FlyDSL, CK, asm...) load and look up like any row, since a table of
// another tuner is still a valid table; only moetune_ kernels can run (bucket_planner.h).
#include <optional>

#include "kernels/shape_heuristics.h"
#include "moetune/tuned_tables.h"
#include "table/table.h"

namespace moetune::runtime {

// Throws TableError ("file:line: ...") for a key cell, cu_num or block_m that is not valid, a
// kernel name of no known family, or a moetune name that is not a well-formed kernel
// (docs/kernel-names.md), names the other stage's kernel in its slot, or does not pair with the
// row's block_m.
void check_tuned_row(const table::Table& table, const table::TableRow& row);

// The configs of a plan's two moetune kernels; nullopt when either name is of another family.
std::optional<kernels::ConfigPair> moetune_config_pair(const KernelPlan& plan);

}  // namespace moetune::runtime
