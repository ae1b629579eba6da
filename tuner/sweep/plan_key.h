#pragma once
// The key a sweep result is filed under: AITER's dedup key (table/row_key.h: the 12 shape columns
// with token = the bucket, cu_num, gfx, _tag) of the row it will write. Built through the same
// function that keys the rows read back from OUT, so "already tuned" means exactly what AITER's
// merge would call a duplicate.
#include <string>

#include "table/table_shape.h"

namespace moetune::sweep {

std::string plan_key(const table::TableShape& shape, const std::string& gfx, long long cu_num);

}  // namespace moetune::sweep
