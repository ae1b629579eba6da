#pragma once
// The findings about one table on its own: header (missing-column, gfx-inferred, empty-file) and
// each row (bad-value, ragged-row, not-a-table for extra fields, blank-timing, unreachable-bucket,
// unknown-kernel-name). Duplicates and twins need the whole set: check_set.h.
#include <vector>

#include "table/finding.h"
#include "table/table.h"

namespace moetune::table {

void check_table(const Table& table, std::vector<Finding>& out);

}  // namespace moetune::table
