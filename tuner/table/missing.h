#pragma once
// `moetune missing`'s engine: the (shape, token bucket) pairs that no tuned row covers, i.e. where
// AITER falls back to its heuristics. A tuned row covers a pair when its 12 shape columns match
// exactly (act_type included: a row tuned for another activation is not a tuning of this one)
// with token = the bucket; rows tagged flydsl_fallback do not count (AITER's loader drops them).
#include <optional>
#include <string>
#include <vector>

#include "table/table.h"
#include "table/table_shape.h"

namespace moetune::table {

struct MissingQuery {
    // Empty: each row of the shapes file at its own token, mapped to the bucket AITER looks up
    // (96 -> 128). Otherwise every distinct shape of the file (its token ignored) x these buckets.
    std::vector<long long> buckets;
    std::optional<std::string> gfx;   // only tuned rows for this gfx count (explicit or inferred)
    std::optional<long long> cu_num;  // only tuned rows for this CU count
};

struct MissingReport {
    std::vector<TableShape> missing;  // token = the bucket; sorted by shape, then token
    std::size_t pairs = 0;            // distinct (shape, bucket) pairs considered
};

// Throws InputError for a shapes row that is not a valid shape, or a table without the shape columns.
MissingReport find_missing(const Table& shapes, const std::vector<Table>& tuned, const MissingQuery& query);

}  // namespace moetune::table
