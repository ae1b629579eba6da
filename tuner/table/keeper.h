#pragma once
// Which of several rows with one dedup key AITER keeps (update_config_files, reference §2.2):
// a stable sort by us, then the first per key: the lowest us, ties to the earliest row in
// concatenation order; a row without a us value (NaN, sorted last) loses to any row with one.
// check (to name the row AITER keeps) and merge (lowest-us policy) share this one rule.
#include <cstddef>
#include <optional>
#include <vector>

#include "table/table.h"

namespace moetune::table {

// The row's us, or nullopt when blank or not a number.
std::optional<double> row_us(const Table& table, const TableRow& row);

// Index of the kept row among rows given in concatenation order (never empty).
std::size_t lowest_us_index(const std::vector<std::optional<double>>& us_in_order);

}  // namespace moetune::table
