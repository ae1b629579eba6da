// The JSON `moetune bench` writes (docs/benchmarks.md; scripts/plot_bench.py reads it) and its console rows.
#include <nlohmann/json.hpp>

#include "bench/bench_report.h"
#include "support/catch.hpp"

using namespace moetune;

namespace {

bench::BucketBench bucket(bool tuned) {
    bench::BucketBench b;
    b.tokens = 128;
    b.experts_touched = 96;
    b.work = {1.8e9, 5e12};
    b.roofline_us = 424.0;
    b.default_arm.us = 2000;
    b.default_arm.plan.block_m = 16;
    b.default_arm.plan.kernel_name1 = "moetune_moe1_a";
    b.default_arm.plan.kernel_name2 = "moetune_moe2_a";
    b.default_arm.plan.source = "heuristic default";
    b.default_arm.launches_per_graph = 1;  // 18 replays (3 + 15) of one 2 ms call: 36 ms busy
    b.default_arm.sm_clock = {1980, 2085};
    if (tuned) {
        bench::ArmResult t;
        t.us = 1600;
        t.sm_clock = {1965, 2070};
        t.plan.block_m = 32;
        t.plan.kernel_name1 = "moetune_moe1_b";
        t.plan.tuned = true;
        b.tuned = t;
        b.max_abs_diff = 0.0625;
        b.rel_l2 = 0.003;
    }
    return b;
}

}  // namespace

TEST_CASE("bench JSON has the documented fields, tuned arm or not", "[bench]") {
    bench::BenchHeader h;
    h.device = "NVIDIA H200";
    h.settings.peaks = {4.27, 1550};
    h.settings.rounds = 3;
    h.settings.overlap_launches = false;  // --serial-launches
    h.hbm_measured = bench::HbmStreams{.copy_tbps = 4.1, .read_tbps = 4.27};
    const std::vector<bench::ShapeResults> shapes{{{0, 5120, 2304, 96, 5}, {bucket(true), bucket(false)}}};
    const nlohmann::json j = nlohmann::json::parse(bench::bench_json(h, shapes));
    CHECK(j["tool"] == "moetune bench");
    CHECK(j["peaks"]["hbm_source"] == "measured");
    CHECK(j["peaks"]["hbm_copy_tbps"] == 4.1);  // both streams where measured
    CHECK(j["peaks"]["hbm_read_tbps"] == 4.27);
    CHECK(j["peaks"]["tflops_source"] == "flag");
    h.tflops_measured = true;
    CHECK(nlohmann::json::parse(bench::bench_json(h, shapes))["peaks"]["tflops_source"] == "measured");
    h.hbm_measured.reset();  // a ceiling given by --hbm-tbps: no streams to report
    CHECK_FALSE(nlohmann::json::parse(bench::bench_json(h, shapes))["peaks"].contains("hbm_read_tbps"));
    CHECK(j["rounds"] == 3);
    CHECK(j["overlap_launches"] == false);
    const auto& s = j["shapes"][0];
    CHECK(s["model_dim"] == 5120);
    CHECK(s["experts"] == 96);
    const auto& tuned = s["buckets"][0];
    CHECK(tuned["tokens"] == 128);
    CHECK(tuned["default"]["us"] == 2000.0);
    CHECK(tuned["default"]["roofline_pct"].get<double>() == Approx(21.2));
    CHECK(tuned["default"]["tbps"].get<double>() == Approx(0.9));
    CHECK(tuned["default"]["launches_per_graph"] == 1);
    CHECK(tuned["default"]["busy_ms"].get<double>() == Approx(36.0));
    CHECK(tuned["default"]["sm_mhz_low"] == 1980.0);
    CHECK(tuned["default"]["sm_mhz_high"] == 2085.0);
    CHECK(tuned["tuned"]["sm_mhz_low"] == 1965.0);
    CHECK(tuned["tuned"]["us"] == 1600.0);
    CHECK(tuned["tuned"]["block_m"] == 32);
    CHECK(tuned["speedup"].get<double>() == Approx(1.25));
    CHECK(tuned["rel_l2"].get<double>() == Approx(0.003));
    const auto& untuned = s["buckets"][1];
    CHECK(untuned["tuned"].is_null());
    CHECK(untuned["speedup"].is_null());
}

TEST_CASE("console rows show the tuned arm, or dashes without one", "[bench]") {
    const std::string with = bench::bench_table_row(bucket(true));
    CHECK(with.find("1.25x") != std::string::npos);
    CHECK(with.find("26.5%") != std::string::npos);  // 424 / 1600
    const std::string without = bench::bench_table_row(bucket(false));
    CHECK(without.find("21.2%") != std::string::npos);  // 424 / 2000
    CHECK(without.find("x") == std::string::npos);
    CHECK(bench::bench_table_header().find("% roofline") != std::string::npos);
    // The clocks both arms met: the lowest and highest reading of either.
    CHECK(with.find("1965-2085") != std::string::npos);
    CHECK(without.find("1980-2085") != std::string::npos);
    bench::BucketBench unread = bucket(true);
    unread.default_arm.sm_clock = unread.tuned->sm_clock = {};
    CHECK(bench::bench_table_row(unread).ends_with(" -"));
    CHECK(bench::bench_table_header().ends_with("SM MHz"));
}
