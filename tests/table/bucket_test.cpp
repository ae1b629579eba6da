#include "support/catch.hpp"

#include <stdexcept>

#include "table/bucket.h"

using namespace moetune::table;

TEST_CASE("bucket: get_padded_M rounds up to a power of two, then the two large tiers") {
    CHECK(padded_m(1) == 1);
    CHECK(padded_m(2) == 2);
    CHECK(padded_m(3) == 4);
    CHECK(padded_m(5) == 8);
    CHECK(padded_m(96) == 128);
    CHECK(padded_m(100) == 128);
    CHECK(padded_m(16384) == 16384);
    CHECK(padded_m(16385) == 32768);
    CHECK(padded_m(32768) == 32768);
    CHECK(padded_m(131071) == 32768);
    CHECK(padded_m(131072) == 131072);
    CHECK(padded_m(1000000) == 131072);
}

TEST_CASE("bucket: only powers of two up to 16384 and the two tiers are reachable") {
    CHECK(is_reachable_bucket(1));
    CHECK(is_reachable_bucket(16384));
    CHECK(is_reachable_bucket(32768));
    CHECK(is_reachable_bucket(131072));
    CHECK_FALSE(is_reachable_bucket(0));
    CHECK_FALSE(is_reachable_bucket(3));
    CHECK_FALSE(is_reachable_bucket(96));
    CHECK_FALSE(is_reachable_bucket(65536));
    CHECK_FALSE(is_reachable_bucket(262144));
}

TEST_CASE("bucket: the aiter ladder has 17 buckets") {
    const auto b = aiter_buckets();
    REQUIRE(b.size() == 17);
    CHECK(b.front() == 1);
    CHECK(b[14] == 16384);
    CHECK(b[15] == 32768);
    CHECK(b.back() == 131072);
    for (long long t : b) CHECK(is_reachable_bucket(t));
}

TEST_CASE("bucket: --buckets lists are sorted, deduplicated and validated") {
    CHECK(parse_bucket_list("aiter") == aiter_buckets());
    CHECK(parse_bucket_list("4,1,2,2") == std::vector<long long>{1, 2, 4});
    CHECK_THROWS_AS(parse_bucket_list("96"), std::invalid_argument);
    CHECK_THROWS_AS(parse_bucket_list("1,x"), std::invalid_argument);
    CHECK_THROWS_AS(parse_bucket_list(""), std::invalid_argument);
    CHECK_THROWS_AS(parse_bucket_list("1,"), std::invalid_argument);
}
