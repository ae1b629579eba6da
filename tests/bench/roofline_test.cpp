// The roofline arithmetic of `moetune bench`, checked against the figures of
// performance-anchors.md's per-bucket table for DSv4.1-Flash on the H200 (4.27 TB/s, 1550 TFLOP/s).
#include "bench/roofline.h"
#include "support/catch.hpp"

using namespace moetune;

namespace {

data::MoeShape dsv41(int tokens) { return {tokens, 5120, 2304, 96, 5}; }
constexpr bench::Peaks kH200{4.27, 1550};

}  // namespace

TEST_CASE("one token touching 5 experts is bound by their weights: ~22 us", "[bench]") {
    const bench::MoeWork w = bench::moe_work(dsv41(1), 5);
    // 5 x (3 x 2304 x 5120 FP4 values / 2 + one e8m0 per 32) = 88.5 MB + 5.5 MB
    CHECK(w.bytes == Approx(5 * (35389440 / 2.0 + 35389440 / 32.0) + 5120 + 160 + 10240));
    // The anchors' table says 22.03: it also counts 3*topk*inter_dim bytes of intermediates per token,
    // which the anchors' own formula (and scripts/moe_roofline.py) leave out.
    CHECK(bench::roofline_us(w, kH200) == Approx(22.02).margin(0.005));
}

TEST_CASE("4096 tokens are bound by the tensor cores: ~935 us", "[bench]") {
    const bench::MoeWork w = bench::moe_work(dsv41(4096), 96);
    CHECK(w.flops == Approx(2.0 * 4096 * 5 * 5120 * 4608 + 2.0 * 4096 * 5 * 2304 * 5120));
    CHECK(bench::roofline_us(w, kH200) == Approx(935.19).margin(0.01));
}

TEST_CASE("achieved rates are the work over the time", "[bench]") {
    const bench::MoeWork w{2e9, 3e12};
    CHECK(bench::achieved_tbps(w, 1000) == Approx(2.0));    // 2 GB in 1 ms
    CHECK(bench::achieved_tflops(w, 1000) == Approx(3000));  // 3 TFLOP in 1 ms
    CHECK(bench::achieved_tbps(w, 0) == 0);
}
