#pragma once
// The findings about one table on its own: header (missing-column, gfx-inferred, empty-file) and
// each row (bad-value, ragged-row, not-a-table for extra fields, blank-timing, unreachable-bucket,
// unknown-kernel-name). Duplicates and twins need the whole set: check_set.h.
#include <string>
#include <vector>

#include "table/finding.h"
#include "table/table.h"

namespace moetune::table {

void check_table(const Table& table, std::vector<Finding>& out);

// Throws InputError for the first row of `table` AITER could not load as it stands (more fields than
// the header) or that holds a bad-value cell: the tables merge and sweep write their rows into.
void require_loadable_rows(const Table& table);

// Row r's bad-value problems ("token '0' is not a whole number >= 1"), column by column; a short
// row's cells past its key are not judged (after a missing field they cannot be trusted).
std::vector<std::string> cell_problems(const Table& table, const TableRow& row);

}  // namespace moetune::table
