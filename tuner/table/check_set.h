#pragma once
// The findings that need several rows: duplicate-key (within a file), cross-file-duplicate and
// act-type-twin, judged the way AITER merges and looks up (reference §2.2-§2.3).
#include <vector>

#include "table/finding.h"
#include "table/table.h"

namespace moetune::table {

// The tuned tables in merge order (the order given on the command line).
void check_tuned_set(const std::vector<const Table*>& tuned, std::vector<Finding>& out);

// An untuned table: only act-type twins (two rows that would be tuned into rows AITER cannot tell
// apart). Duplicate untuned rows are harmless: AITER's tuner drops exact duplicates, and gfx/cu_num
// are stamped from the running GPU, so a repeated shape is tuned once.
void check_untuned_table(const Table& untuned, std::vector<Finding>& out);

}  // namespace moetune::table
