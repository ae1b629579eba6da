#pragma once
// The unit of work of the measurement harness and what comes back: one candidate kernel of one
// (shape, token bucket), or the pass the library runs between the stages of some pairs
// (kernels/stage_handoff.h), timed alone so that the sweep can charge it to those pairs. A parent
// hands tasks to worker processes as JSON lines (worker_protocol.h) and gets results back the same
// way, so both types round-trip through JSON exactly.
// How a task is run, judged and timed: docs/measurement.md.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "data/moe_problem.h"

namespace moetune::measure {

struct TimingOptions {
    int launches_per_graph = 20;  // R back-to-back launches of the candidate captured in one graph (at most R
                                  // when replay_ms adapts it)
    int warmup_replays = 3;       // graph replays before timing (clocks up, caches and TLBs warm)
    int timed_replays = 15;       // replays each timed between two events; the median is reported
    // > 0: R adapts so that one replay lasts about this long (from one timed launch before capture),
    // between 1 and launches_per_graph. A 20 µs kernel keeps R = 20, a 5 ms one runs alone: R only
    // has to hide launch gaps, and 20 launches of a slow kernel would cost seconds per candidate.
    double replay_ms = 2.0;
    bool cold_l2 = false;         // rotate the R launches over copies of activations and outputs
    // Launch i of a graph takes routing i mod routings (the task's spec from seeds seed, seed + 1, ...), as a
    // model's layers route each call elsewhere: with one, a few-token launch finds its experts' weights in
    // the L2 the launch before left. 1 to kMaxTimedRoutings; more than 1 only for routings that vary with
    // the seed (data::varies_with_seed). Routing 0 is the one judged. (The commands' --routings default is
    // cli::kDefaultTimedRoutings; a task made in code times one routing unless it asks for more.)
    int routings = 1;
};

inline constexpr int kMaxTimedRoutings = 64;

struct MeasureTask {                 // one candidate of one (shape, token bucket)
    data::MoeShape shape;            // tokens = the bucket's M
    uint64_t seed = 0;
    std::string routing = "random";  // data::parse_routing_spec spelling
    std::string kernel_name;         // kernels::parse_kernel_name gives the config, or a handoff pass's
                                     // name (kernels::handoff_pass_name): that pass alone is timed, on
                                     // the bucket's stage-2 input (stage 0 in the result)
    std::string arch;                // compile target, e.g. "sm_90a"
    std::string cache_dir;           // rtc kernel cache (the parent compiles first; the worker then hits the cache)
    std::string metric = "cosine";   // data error-metric flag spelling; gate: err <= err_ratio
    double err_ratio = 0.1;
    TimingOptions timing;
    int test_break = 0;              // 0, or 1 wrong / 2 fault / 3 hang (compiled with -DMOETUNE_TEST_BREAK)
};

struct MeasureResult {
    std::string kernel_name;
    int stage = 0;  // 1, 2, or 0 for a handoff pass
    int block_m = 0;
    bool ok = false;
    // "" when ok; otherwise "<kind>: <detail>" with kind one of (see failure.h)
    //   config, input, compile, launch, fault, nan, wrong, timeout, internal
    // e.g. "wrong: cosine 0.31 > 0.1", "fault: worker exited with signal 6 (Aborted): <last stderr line>".
    std::string failure;
    double us = 0;          // median per-launch time (µs); for stage 1 without _fp8 this includes the
                            // separate MXFP8 quant kernel's time (AITER's fairness adder, §3.7);
                            // for stage-2 reduce it includes the reduce kernel; atomic includes zeroing
    double err = 0;         // value of the gating metric
    double spread_pct = 0;  // (max - min) / median of the timed replays, in percent, for the report
    int launches_per_graph = 0;  // the R the time was measured with (TimingOptions::replay_ms adapts it)
    // The SM clock (MHz) the probe read right before and right after the timed replays (sm_clock_probe.h); 0 when
    // not read. An H100 moves its clock in 15 MHz steps that nvidia-smi does not show: a time is comparable with
    // another one taken at the same clock.
    double sm_mhz_before = 0;
    double sm_mhz_after = 0;
};

void to_json(nlohmann::json& j, const TimingOptions& o);
void from_json(const nlohmann::json& j, TimingOptions& o);
void to_json(nlohmann::json& j, const MeasureTask& t);
void from_json(const nlohmann::json& j, MeasureTask& t);
void to_json(nlohmann::json& j, const MeasureResult& r);
void from_json(const nlohmann::json& j, MeasureResult& r);

// Why the options cannot time anything (a count below 1), or "" when they can.
std::string timing_options_error(const TimingOptions& o);

}  // namespace moetune::measure
