#pragma once
// AITER's runtime merge of several tuned tables (AITER_CONFIG.update_config_files, reference
// §2.2), as a pure function: column union (a new column goes before `tflops`, or before the last
// column), AITER's fill for a column a file lacks (gfx from cu_num, everything else 0, _tag
// empty), rows concatenated in file order, then one row per dedup key. AITER's own merge keeps the
// lowest us and rewrites the source files in place; this one reports what it drops and never
// touches an input.
#include <cstddef>
#include <string>
#include <vector>

#include "table/table.h"

namespace moetune::table {

enum class DuplicatePolicy {
    lowest_us,  // AITER's rule (keeper.h)
    first,      // the earliest row in file order
    last,       // the latest row in file order
    error,      // report every duplicate; the caller writes nothing
};

struct DroppedRow {
    std::string file;
    std::size_t line = 0;
    std::string key;  // describe_key of the row
    std::string kept_file;
    std::size_t kept_line = 0;
    std::string reason;
};

struct MergeResult {
    Table merged;  // union columns; surviving rows in file order, each with its source line
    std::vector<std::string> row_files;  // per row of `merged`: the file it came from
    std::vector<DroppedRow> dropped;  // for DuplicatePolicy::error: every row beyond the first per key
};

// Throws InputError for an input AITER could not merge either: an untuned table, a missing key
// column (12 shape columns + cu_num), a row with more fields than its header, a cell that is not
// what its column holds (check's bad-value).
MergeResult merge_tables(const std::vector<Table>& inputs, DuplicatePolicy policy);

}  // namespace moetune::table
