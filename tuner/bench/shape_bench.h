#pragma once
// `moetune bench` for one MoE shape: synthetic weights (generated on the GPU, laid out with
// libmoetune's FusedMoe::lay_out_weights) and two libmoetune FusedMoe objects on them -- the
// "default" arm without a table (the heuristic configs) and the "tuned" arm with the tables. Per
// token bucket both run on the same synthetic hidden states and routing; their outputs are compared,
// then each is timed with graph replays, the arms alternating over the rounds so that a clock or
// thermal drift hits both alike. What is timed is FusedMoe::run: activation quantisation,
// moe_sorting, stage 1 (+ its output quantisation unless fused) and stage 2 (+ zeroing or reduce).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "bench/roofline.h"
#include "common/clock_range.h"
#include "data/moe_problem.h"
#include "gpu/stream.h"
#include "measure/measure_task.h"
#include "moetune/fused_moe.h"

namespace moetune::bench {

struct BenchSettings {
    int rounds = 5;  // timed rounds per arm; each arm's us is the median over them
    // One round: graph replays of FusedMoe::run. timing.routings: the routings the timed launches rotate
    // over (seeds seed, seed + 1, ...; launch i of a graph uses routing i mod n, and a graph holds a
    // multiple of n launches). 1 repeats one routing, so at a few tokens the experts' weights stay in
    // the L2 from one call to the next as they would not in a model, whose next MoE call is another
    // layer's; n > 1 gives each call other experts. The outputs compared are routing 0's; the work and
    // roofline are the mean over the n. Needs a routing drawn from the seed (random, skewed) when n > 1.
    measure::TimingOptions timing;
    uint64_t seed = 0;
    std::string routing = "random";  // data::parse_routing_spec spelling
    std::string cache_dir;           // "" = moetune's default
    bool overlap_launches = true;    // FusedMoeOptions::overlap_launches, both arms
    bool l2_stage2_weights = false;  // FusedMoeOptions::l2_stage2_weights, both arms
    Peaks peaks;
};

struct ArmResult {
    KernelPlan plan;
    double us = 0;  // median over the rounds of the per-call time
    int launches_per_graph = 1;  // calls captured in one graph (adapted to the call's time)
    // The lowest and highest SM clock (MHz) read right before and right after its rounds (measure/sm_clock_probe.h);
    // 0 where the probe reads none. An H100 runs between ~1890 and 2100 MHz from one second to the next: figures
    // of two runs compare where their clocks do.
    ClockRange sm_clock;
};

// How long one of the arm's rounds keeps the GPU busy without a pause: its warm-up and timed replays
// run back to back, launches_per_graph calls each. On the H200 the power cap lowers the clock within
// tens of ms under the large buckets (docs/benchmarks.md, session 37), so µs of rounds that differ in
// this are not like for like.
double busy_ms(const ArmResult& arm, const measure::TimingOptions& timing);

struct BucketBench {
    int tokens = 0;
    int experts_touched = 0;  // routing 0's (work and roofline_us: the mean over the routings timed)
    MoeWork work;
    double roofline_us = 0;
    ArmResult default_arm;
    std::optional<ArmResult> tuned;  // nullopt: the tables have no row for this bucket
    double max_abs_diff = 0;         // tuned vs default output (0 without a tuned row)
    double rel_l2 = 0;               // ||tuned - default|| / ||default||
};

class ShapeBench {
public:
    // Prepares both arms for up to max_tokens tokens (compiling or loading their kernels). Throws
    // std::invalid_argument for a shape the kernels do not implement, TableError for a bad row.
    ShapeBench(const data::MoeShape& shape, const TunedTables& tables, const BenchSettings& settings, int max_tokens,
               const gpu::Stream& stream);
    ~ShapeBench();

    BucketBench run(int tokens);

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace moetune::bench
