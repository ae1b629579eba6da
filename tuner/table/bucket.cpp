#include "table/bucket.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "table/cell_value.h"

namespace moetune::table {

long long padded_m(long long tokens) {
    if (tokens >= kHugeTier) return kHugeTier;
    if (tokens >= kLargeTier) return kLargeTier;
    long long bucket = 1;
    while (bucket < tokens) bucket *= 2;
    return bucket;
}

bool is_reachable_bucket(long long token) { return token >= 1 && padded_m(token) == token; }

std::vector<long long> aiter_buckets() {
    std::vector<long long> buckets;
    for (long long b = 1; b < kLargeTier; b *= 2) buckets.push_back(b);
    buckets.push_back(kLargeTier);
    buckets.push_back(kHugeTier);
    return buckets;
}

std::vector<long long> parse_bucket_list(std::string_view spec) {
    if (spec == "aiter") return aiter_buckets();
    std::vector<long long> buckets;
    while (true) {
        const std::size_t comma = spec.find(',');
        const std::string_view item = spec.substr(0, comma);
        const std::optional<long long> token = parse_integer(item);
        if (!token || !is_reachable_bucket(*token))
            throw std::invalid_argument("'" + std::string(item) +
                                        "' is not a token bucket AITER looks up (powers of two up to 16384, "
                                        "32768, 131072)");
        buckets.push_back(*token);
        if (comma == std::string_view::npos) break;
        spec.remove_prefix(comma + 1);
    }
    std::sort(buckets.begin(), buckets.end());
    buckets.erase(std::unique(buckets.begin(), buckets.end()), buckets.end());
    return buckets;
}

}  // namespace moetune::table
