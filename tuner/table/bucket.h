#pragma once
// AITER's token bucketing (aiter/fused_moe.py get_padded_M, reference §2.3): the runtime looks up
// nextPow2(M) below 32768, then the 32768 and 131072 tiers, by exact match. Rows for any other
// token count are never used (issue #5125).
#include <optional>
#include <string_view>
#include <vector>

namespace moetune::table {

inline constexpr long long kLargeTier = 32768;
inline constexpr long long kHugeTier = 131072;

long long padded_m(long long tokens);  // the bucket AITER looks up for M tokens (M >= 1)
// The bucket AITER looks up next when `bucket` has no row: the 32768 tier after the 131072 one.
inline std::optional<long long> retried_bucket(long long bucket) {
    return bucket == kHugeTier ? std::optional<long long>(kLargeTier) : std::nullopt;
}
bool is_reachable_bucket(long long token);
std::vector<long long> aiter_buckets();  // 1, 2, 4, ..., 16384, 32768, 131072

// "aiter" or a comma-separated list of reachable buckets ("1,2,4"); sorted, without repeats.
// Throws std::invalid_argument naming the offending item.
std::vector<long long> parse_bucket_list(std::string_view spec);

}  // namespace moetune::table
