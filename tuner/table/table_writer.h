#pragma once
// Writes CSV the way AITER's files are written (pandas to_csv: LF line ends, no BOM, quotes only
// where a cell needs them). format_table is the faithful re-writer of a read Table: same columns,
// same raw cells, so reading it back gives identical rows and values.
#include <string>
#include <string_view>
#include <vector>

#include "table/table.h"

namespace moetune::table {

// One record with its line end; a field with a comma, quote, CR or LF is quoted.
std::string format_csv_record(const std::vector<std::string>& fields);

// Header plus every row; a short row comes out padded with empty cells (what pandas writes for
// NaN), fields beyond the header are written back as they were.
std::string format_table(const Table& table);

}  // namespace moetune::table
