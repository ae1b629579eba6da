#pragma once
// `--only-missing --tuned T.csv ...`: drop the plan requests some tuned table already covers for
// this gfx and cu_num, by `moetune missing`'s rule (table/missing.h: the 12 shape columns match
// exactly, token = the bucket, flydsl_fallback rows do not count).
#include <vector>

#include "sweep/plan.h"
#include "table/table.h"

namespace moetune::sweep {

// The requests no row of `tuned` covers, in their order. Throws InputError for a tuned table
// without the shape columns.
std::vector<PlanRequest> drop_covered(const std::vector<PlanRequest>& requests,
                                      const std::vector<table::Table>& tuned, const PlanTarget& target);

}  // namespace moetune::sweep
