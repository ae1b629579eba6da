#pragma once
// The findings about one table on its own: header (missing-column, gfx-inferred, empty-file) and
// each row (bad-value, ragged-row, not-a-table for extra fields, blank-timing, unreachable-bucket,
// unknown-kernel-name, bad-moetune-kernel). Duplicates and twins need the whole set: check_set.h.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "table/finding.h"
#include "table/table.h"

namespace moetune::table {

// libmoetune's rule for a moetune_ kernel in a tuned row (kernels/moetune_kernel_rules.h, which this
// library, free of the kernels' code, cannot call itself): why the library would refuse `name` in the
// slot of stage `stage` (1 or 2) of a row whose block_m cell is `block_m`, or nullopt. Given, check
// reports each refusal as bad-moetune-kernel; without it moetune_ names are judged by their prefix.
using MoetuneKernelRule =
    std::function<std::optional<std::string>(int stage, std::string_view name, std::string_view block_m)>;

void check_table(const Table& table, std::vector<Finding>& out, const MoetuneKernelRule& moetune_rule = {});

// Throws InputError for the first row of `table` AITER could not load as it stands (more fields than
// the header) or that holds a bad-value cell: the tables merge and sweep write their rows into.
void require_loadable_rows(const Table& table);

// Row r's bad-value problems ("token '0' is not a whole number >= 1"), column by column; a short
// row's cells past its key are not judged (after a missing field they cannot be trusted).
std::vector<std::string> cell_problems(const Table& table, const TableRow& row);

}  // namespace moetune::table
