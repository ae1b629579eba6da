// The harness on the GPU (issue 4 item 5, "Done when"): candidates of every kind pass the reference
// and are timed; repeated timing of a candidate at one SM clock is stable within 3%; the deliberately
// broken variants are caught -- wrong output as "wrong", a faulting kernel as "fault" and a hanging one as "timeout",
// each time with the next candidate still measured (through WorkerClient, i.e. worker processes).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "data/routing.h"
#include "data/routing_spec.h"
#include "data_gpu/data_kernels.h"
#include "gpu/stream.h"
#include "measure/bucket_data.h"
#include "measure/failure.h"
#include "measure/measurer.h"
#include "measure/shape_weights.h"
#include "measure/worker_client.h"
#include "select/clock_recheck.h"
#include "measure_gpu_fixture.h"
#include "support/test_env.h"

using namespace moetune;
using kernels::KernelConfig;
using kernels::Stage;
using measure::failure_kind;
using measure::MeasureResult;
using measure::MeasureTask;
using test::candidate;
using test::task_for;

namespace {

measure::Measurer& measurer() {
    static measure::Measurer m(0);
    return m;
}

void print(const MeasureResult& r) {
    std::printf("  %-64s %10.2f us  err %.5f  spread %5.2f%%  %s\n", r.kernel_name.c_str(), r.us, r.err, r.spread_pct,
                r.ok ? "ok" : r.failure.c_str());
}

bool fused(const KernelConfig& c) { return c.fused_mxfp8_out; }
bool unfused(const KernelConfig& c) { return !c.fused_mxfp8_out; }
bool atomic(const KernelConfig& c) { return c.mode == kernels::Stage2Mode::atomic && c.sort_block == 0; }
bool reduce(const KernelConfig& c) { return c.mode == kernels::Stage2Mode::reduce; }
bool half_sort_block(const KernelConfig& c) { return c.sort_block == 2 * c.tile_m; }
bool any(const KernelConfig&) { return true; }

// Two runs of one task that differ only in how it is timed ran the same validating launch: bit-identical
// for stage 1; stage 2's atomic adds land in a different order from run to run, which moves the error in
// its last digits only.
void check_same_validation(Stage stage, const MeasureResult& plain, const MeasureResult& other) {
    print(plain);
    print(other);
    REQUIRE(plain.ok);
    REQUIRE(other.ok);
    if (stage == Stage::gate_up) CHECK(other.err == plain.err);
    else CHECK(other.err == Approx(plain.err).margin(1e-6));
    CHECK(other.us > 0);
}

}  // namespace

TEST_CASE("a candidate of every kind passes the reference and is timed", "[gpu][measure]") {
    for (int tokens : {1, 32}) {
        const std::vector<KernelConfig> picks = {
            candidate(Stage::gate_up, tokens, fused),   candidate(Stage::gate_up, tokens, unfused),
            candidate(Stage::down, tokens, atomic),     candidate(Stage::down, tokens, reduce),
            candidate(Stage::down, tokens, half_sort_block)};
        std::printf("%d tokens:\n", tokens);
        for (const KernelConfig& c : picks) {
            const MeasureResult r = measurer().run(task_for(c, tokens));
            print(r);
            INFO(r.kernel_name << ": " << r.failure);
            CHECK(r.ok);
            CHECK(r.failure.empty());
            CHECK(r.stage == kernels::stage_number(c.stage));
            CHECK(r.block_m == kernels::sort_block_m(c));
            CHECK(r.us > 0);
            CHECK(r.err <= 0.1);
            CHECK(r.spread_pct >= 0);
        }
    }
}

TEST_CASE("cold-L2 timing validates and times the same candidates", "[gpu][measure]") {
    for (Stage stage : {Stage::gate_up, Stage::down}) {
        MeasureTask task = task_for(candidate(stage, 32, any), 32);
        const MeasureResult warm = measurer().run(task);
        task.timing.cold_l2 = true;
        check_same_validation(stage, warm, measurer().run(task));
    }
}

TEST_CASE("timing over several routings validates the task's own and times a launch of each in turn",
          "[gpu][measure]") {
    for (Stage stage : {Stage::gate_up, Stage::down}) {
        MeasureTask task = task_for(candidate(stage, 1, any), 1);
        const MeasureResult one = measurer().run(task);
        task.timing.routings = 8;
        const MeasureResult eight = measurer().run(task);
        check_same_validation(stage, one, eight);  // routing 0 is the task's own
        CHECK(eight.launches_per_graph >= 8);
        CHECK(eight.launches_per_graph % 8 == 0);  // each routing as often
    }
}

TEST_CASE("the routings after a bucket's first are the spec's of the next seeds, each sorted", "[gpu][measure]") {
    const std::string cache_dir = MOETUNE_TEST_KERNEL_CACHE;
    const rtc::KernelCache cache(cache_dir);
    const data::DataKernels data_kernels(&cache);
    const measure::HarnessKernels harness_kernels(&cache);
    const gpu::Stream stream;
    const data::MoeShape shape = test::dsv41(1);
    const uint64_t seed = 7;
    const measure::ShapeWeights weights(data_kernels, harness_kernels, shape, seed, stream);
    const data::RoutingSpec spec = data::parse_routing_spec("random");
    measure::BucketData bucket(data_kernels, weights, shape, seed, spec, stream);
    std::set<std::vector<int32_t>> expert_sets;
    for (int r = 0; r < 8; ++r) {
        const data::DeviceSortedRouting& sorted = bucket.sorted(16, r);
        const int blocks = sorted.num_valid_ids.download()[0] / 16;
        std::vector<int32_t> experts = sorted.sorted_expert_ids.download();
        experts.resize(blocks);  // the valid blocks: one expert each at one token
        std::vector<int32_t> routed = data::make_routing(spec, shape, seed + r).ids;
        std::sort(routed.begin(), routed.end());
        CHECK(experts == routed);  // routing r is the spec's of seed + r
        expert_sets.insert(experts);
    }
    CHECK(expert_sets.size() > 4);  // 8 draws of 5 experts of 96 hardly repeat
    CHECK(&bucket.sorted(16, 3) == &bucket.sorted(16, 3));  // sorted once
}

// Repeats timed at one SM clock: the probe read the same clock (within select::kSameClockTolerance, 0.5 %) right
// before and after each one's replays, and the same as the others'. An H100 moves its clock in 15 MHz steps, up to 6 % while nvidia-smi says
// 1980 MHz throughout, and a repeat's time moves with it (docs/benchmarks.md, session 61); the measurer's own
// repeatability is what holds at one clock. Returns the largest such set. Under a long compute-bound kernel (stage 1
// at 4096 tokens) the card runs slower than the probe, light and ~1 ms long, sees before and after (1980-2040 MHz
// before, 2062-2081 after, session 61): no repeat is at one clock, and all of them are compared instead.
std::vector<MeasureResult> at_one_clock(const std::vector<MeasureResult>& repeats) {
    const auto same = [](double a, double b) {
        return std::abs(a - b) <= select::kSameClockTolerance * std::max(a, b);
    };
    std::vector<MeasureResult> best;
    for (const MeasureResult& pivot : repeats) {
        std::vector<MeasureResult> set;
        for (const MeasureResult& r : repeats)
            if (same(r.sm_mhz_before, r.sm_mhz_after) && same(r.sm_mhz_after, pivot.sm_mhz_after)) set.push_back(r);
        if (set.size() > best.size()) best = set;
    }
    return best;
}

TEST_CASE("repeated timing of one candidate at one SM clock varies by less than 3%", "[gpu][measure]") {
    constexpr int kRepeats = 8;
    for (int tokens : {1, 32, 4096})
        for (Stage stage : {Stage::gate_up, Stage::down}) {
            const MeasureTask task = task_for(candidate(stage, tokens, any), tokens);
            std::vector<MeasureResult> repeats;
            std::printf("  %-64s M=%-5d", task.kernel_name.c_str(), tokens);
            for (int run = 0; run < kRepeats; ++run) {
                const MeasureResult& r = repeats.emplace_back(measurer().run(task));
                REQUIRE(r.ok);
                CHECK(r.sm_mhz_before > 0);
                std::printf(" %.2f us (%.0f-%.0f MHz)", r.us, r.sm_mhz_before, r.sm_mhz_after);
            }
            std::vector<MeasureResult> steady = at_one_clock(repeats);
            const bool clock_seen = steady.size() >= 2;
            if (!clock_seen) steady = repeats;
            std::vector<double> us;
            for (const MeasureResult& r : steady) us.push_back(r.us);
            std::sort(us.begin(), us.end());
            const double variation = (us.back() - us.front()) / us[us.size() / 2] * 100;
            if (clock_seen)
                std::printf(": %zu at %.0f MHz, %.2f%%\n", steady.size(), steady[0].sm_mhz_after, variation);
            else std::printf(": none at one clock, all %zu: %.2f%%\n", steady.size(), variation);
            INFO(task.kernel_name << " at " << tokens << " tokens, " << steady.size() << " repeats "
                                  << (clock_seen ? "at one clock" : "(none at one clock)") << ": " << us.front()
                                  << " .. " << us.back() << " us");
            CHECK(variation < 3.0);
        }
}

TEST_CASE("a deliberately wrong kernel is caught as wrong", "[gpu][measure]") {
    for (Stage stage : {Stage::gate_up, Stage::down})
        for (int tokens : {1, 32}) {
            MeasureTask task = task_for(candidate(stage, tokens, any), tokens);
            task.test_break = 1;
            const MeasureResult r = measurer().run(task);
            print(r);
            CHECK_FALSE(r.ok);
            CHECK(failure_kind(r.failure) == "wrong");
            CHECK(r.err > task.err_ratio);
            CHECK(r.us == 0);  // a wrong kernel is not timed
        }
}

TEST_CASE("the passes between the stages are checked and timed as tasks of their own", "[gpu][measure]") {
    // What the sweep charges the pairs of a _fp8 stage 1 and a stage 2 on rebased rows (sweep/handoff_passes.h).
    for (int tokens : {1, 1024})
        for (const char* pass : {"mxfp8_rebase", "mxfp8_rebase_interleaved"}) {
            MeasureTask task = task_for(candidate(Stage::down, tokens, any), tokens);
            task.kernel_name = pass;
            const MeasureResult r = measurer().run(task);
            print(r);
            INFO(pass << " at " << tokens << " tokens: " << r.failure);
            CHECK(r.ok);
            CHECK(r.kernel_name == pass);
            CHECK(r.stage == 0);
            CHECK(r.us > 0);
            CHECK(r.launches_per_graph >= 1);
        }
}

TEST_CASE("bad tasks fail with their reason, without touching the GPU state", "[gpu][measure]") {
    const MeasureTask good = task_for(candidate(Stage::down, 1, any), 1);
    MeasureTask t = good;
    t.kernel_name = "moetune_moe2_nonsense";
    CHECK(failure_kind(measurer().run(t).failure) == "config");
    t = good;
    t.routing = "sideways";
    CHECK(failure_kind(measurer().run(t).failure) == "input");
    t = good;
    t.routing = "file:/nonexistent/routing.csv";
    CHECK(failure_kind(measurer().run(t).failure) == "input");
    t = good;
    t.metric = "vibes";
    CHECK(failure_kind(measurer().run(t).failure) == "input");
    t = good;
    t.shape.model_dim = 5000;  // not a multiple of the K chunk
    CHECK(failure_kind(measurer().run(t).failure) == "input");
    t = good;
    t.timing.timed_replays = 0;
    CHECK(failure_kind(measurer().run(t).failure) == "input");
    t = good;
    t.routing = "balanced";  // the same routing whatever the seed: nothing to rotate
    t.timing.routings = 3;
    CHECK(failure_kind(measurer().run(t).failure) == "input");
    CHECK_FALSE(measurer().context_lost());
    CHECK(measurer().run(good).ok);
}

TEST_CASE("a faulting kernel fails as a fault and the next candidate is still measured", "[gpu][measure][worker]") {
    measure::WorkerClient client(0, test::moetune_binary().string(), 120);
    const KernelConfig c = candidate(Stage::gate_up, 32, any);
    MeasureTask fault = task_for(c, 32);
    fault.test_break = 2;
    test::precompile(fault);
    const MeasureResult f = client.run(fault);
    print(f);
    CHECK_FALSE(f.ok);
    CHECK(failure_kind(f.failure) == "fault");
    const MeasureTask good = task_for(candidate(Stage::down, 32, any), 32);
    test::precompile(good);
    const MeasureResult next = client.run(good);
    print(next);
    CHECK(next.ok);
    CHECK(client.restarts() == 1);  // the faulted worker exited; a fresh one measured the next
}

TEST_CASE("a hanging kernel times out and the next candidate is still measured", "[gpu][measure][worker]") {
    // The timeout covers a fresh worker's setup for the bucket (context, 3.4 GB of weights, the
    // references at one token: a few seconds) as well as the task.
    measure::WorkerClient client(0, test::moetune_binary().string(), 30);
    const MeasureTask good = task_for(candidate(Stage::down, 1, any), 1);
    MeasureTask hang = task_for(candidate(Stage::gate_up, 1, any), 1);
    hang.test_break = 3;
    test::precompile(good);
    test::precompile(hang);
    REQUIRE(client.run(good).ok);
    const MeasureResult h = client.run(hang);
    print(h);
    CHECK(h.failure == "timeout after 30 s");
    const MeasureResult next = client.run(good);
    CHECK(next.ok);
    CHECK(client.restarts() == 1);
}
