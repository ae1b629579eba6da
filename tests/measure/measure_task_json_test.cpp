// MeasureTask and MeasureResult cross the process boundary as JSON: every field must survive the
// round trip, optional fields take their defaults, and a task without its shape is refused.
#include <nlohmann/json.hpp>

#include "measure/measure_task.h"
#include "support/catch.hpp"

using namespace moetune::measure;

namespace {

MeasureTask sample_task() {
    MeasureTask t;
    t.shape = {4096, 5120, 2304, 96, 5};
    t.seed = 0xFEEDFACECAFEBEEFull;  // above 2^63: must not go through a signed or double type
    t.routing = "skewed:1.5";
    t.kernel_name = "moetune_moe2_afp8_wfp4_bf16_t64x256x128_atomic_nt_sbm128";
    t.arch = "sm_90a";
    t.cache_dir = "/tmp/cache dir/with \"quotes\"";
    t.metric = "row-cosine";
    t.err_ratio = 0.0625;
    t.timing = {.launches_per_graph = 7,
                .warmup_replays = 2,
                .timed_replays = 11,
                .replay_ms = 0.75,
                .cold_l2 = true,
                .routings = 6};
    t.test_break = 2;
    return t;
}

void check_same(const MeasureTask& a, const MeasureTask& b) {
    CHECK(a.shape.tokens == b.shape.tokens);
    CHECK(a.shape.model_dim == b.shape.model_dim);
    CHECK(a.shape.inter_dim == b.shape.inter_dim);
    CHECK(a.shape.experts == b.shape.experts);
    CHECK(a.shape.topk == b.shape.topk);
    CHECK(a.seed == b.seed);
    CHECK(a.routing == b.routing);
    CHECK(a.kernel_name == b.kernel_name);
    CHECK(a.arch == b.arch);
    CHECK(a.cache_dir == b.cache_dir);
    CHECK(a.metric == b.metric);
    CHECK(a.err_ratio == b.err_ratio);
    CHECK(a.timing.launches_per_graph == b.timing.launches_per_graph);
    CHECK(a.timing.warmup_replays == b.timing.warmup_replays);
    CHECK(a.timing.timed_replays == b.timing.timed_replays);
    CHECK(a.timing.replay_ms == b.timing.replay_ms);
    CHECK(a.timing.cold_l2 == b.timing.cold_l2);
    CHECK(a.timing.routings == b.timing.routings);
    CHECK(a.test_break == b.test_break);
}

}  // namespace

TEST_CASE("a measure task round-trips through a JSON line", "[measure][json]") {
    const MeasureTask t = sample_task();
    const std::string line = nlohmann::json(t).dump();
    CHECK(line.find('\n') == std::string::npos);  // one task, one line
    check_same(nlohmann::json::parse(line).get<MeasureTask>(), t);
}

TEST_CASE("a measure result round-trips through JSON", "[measure][json]") {
    MeasureResult r;
    r.kernel_name = "moetune_moe1_afp8_wfp4_bf16_t16x64x128_w2_nt_gui_fp8";
    r.stage = 1;
    r.block_m = 16;
    r.ok = false;
    r.failure = "wrong: cosine 0.3125 > 0.1";
    r.us = 123.456789012345;
    r.err = 0.3125;
    r.spread_pct = 1.75;
    r.launches_per_graph = 3;
    r.sm_mhz_before = 1979.9;
    r.sm_mhz_after = 2099.8;
    const MeasureResult back = nlohmann::json::parse(nlohmann::json(r).dump()).get<MeasureResult>();
    CHECK(back.kernel_name == r.kernel_name);
    CHECK(back.stage == r.stage);
    CHECK(back.block_m == r.block_m);
    CHECK(back.ok == r.ok);
    CHECK(back.failure == r.failure);
    CHECK(back.us == r.us);  // doubles are written with round-trip precision
    CHECK(back.err == r.err);
    CHECK(back.spread_pct == r.spread_pct);
    CHECK(back.launches_per_graph == 3);
    CHECK(back.sm_mhz_before == r.sm_mhz_before);
    CHECK(back.sm_mhz_after == r.sm_mhz_after);
}

TEST_CASE("a task needs only its shape and kernel name; the rest defaults", "[measure][json]") {
    const auto j = nlohmann::json::parse(
        R"({"shape": {"tokens": 1, "model_dim": 5120, "inter_dim": 2304, "experts": 96, "topk": 5},
            "kernel_name": "k", "timing": {"timed_replays": 4}})");
    const MeasureTask t = j.get<MeasureTask>();
    const MeasureTask defaults;
    CHECK(t.shape.model_dim == 5120);
    CHECK(t.kernel_name == "k");
    CHECK(t.seed == defaults.seed);
    CHECK(t.routing == "random");
    CHECK(t.metric == "cosine");
    CHECK(t.err_ratio == defaults.err_ratio);
    CHECK(t.timing.timed_replays == 4);
    CHECK(t.timing.launches_per_graph == defaults.timing.launches_per_graph);
    CHECK(t.timing.warmup_replays == defaults.timing.warmup_replays);
    CHECK_FALSE(t.timing.cold_l2);
    CHECK(t.timing.routings == 1);  // a parent from before --routings times one routing, as it did
    CHECK(t.test_break == 0);
}

TEST_CASE("a task without its shape or kernel name is refused", "[measure][json]") {
    CHECK_THROWS_AS(nlohmann::json::parse(R"({"kernel_name": "k"})").get<MeasureTask>(), nlohmann::json::exception);
    CHECK_THROWS_AS(nlohmann::json::parse(
                        R"({"shape": {"tokens": 1, "model_dim": 5120, "inter_dim": 2304, "experts": 96, "topk": 5}})")
                        .get<MeasureTask>(),
                    nlohmann::json::exception);
    CHECK_THROWS_AS(nlohmann::json::parse(R"({"shape": {"tokens": 1}, "kernel_name": "k"})").get<MeasureTask>(),
                    nlohmann::json::exception);
}

TEST_CASE("timing options that cannot time anything are named", "[measure]") {
    CHECK(timing_options_error({}).empty());
    CHECK(timing_options_error({0, 3, 15, false}).find("launches_per_graph") != std::string::npos);
    CHECK(timing_options_error({20, -1, 15, false}).find("warmup_replays") != std::string::npos);
    CHECK(timing_options_error({20, 0, 15, false}).empty());
    CHECK(timing_options_error({20, 3, 0, false}).find("timed_replays") != std::string::npos);
    TimingOptions routings;
    for (int n : {0, kMaxTimedRoutings + 1}) {
        routings.routings = n;
        CHECK(timing_options_error(routings).find("routings must be 1 to 64") != std::string::npos);
    }
    routings.routings = kMaxTimedRoutings;
    CHECK(timing_options_error(routings).empty());
}
