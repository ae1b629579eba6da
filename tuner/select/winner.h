#pragma once
// AITER's winner rule for a two-stage MoE (FmoeTuner.post_process, aiter-fmoe-format.md §3.7),
// made deterministic: drop candidates that failed or whose error exceeds err_ratio; per block_m
// keep the fastest stage 1 and the fastest stage 2; pair them on block_m; the winner is the pair
// with the smallest us1 + us2. AITER breaks ties by pandas row order (whatever order the workers
// finished in); here every tie has a fixed rule, so the same measurements always give the same row
// however the work was spread over GPUs:
//   per stage, block_m (and kind, below), equal us -> the lexicographically smallest kernel name;
//   between pairs, equal us1 + us2 -> the smaller block_m.
//
// One extension AITER's kernels do not need: what runs between the stages can depend on the pair
// (kernels/stage_handoff.h: a pass that rebases a _fp8 stage 1's output for a stage 2 on rebased
// rows; no way at all to some inputs). Each candidate then carries a kind (stage 1: of its output,
// stage 2: of its input), the fastest of each (block_m, stage, kind) is kept, and every pair of
// kinds is charged what the caller's HandoffCost says runs between them, or left out. With no
// HandoffCost (or one kind throughout) this is AITER's rule.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace moetune::select {

// One measured candidate kernel of one (shape, token bucket).
struct CandidateResult {
    std::string kernel_name;
    int stage = 0;     // 1 (gate/up) or 2 (down)
    int block_m = 0;   // the moe_sorting block size the kernel consumes (the row's block_m)
    bool ok = false;   // compiled, ran and was validated; false for any failure
    double us = 0;     // kernel time
    double err = 0;    // the gating error metric (a ratio: 0.053 = 5.3%)
    int kind = 0;      // stage 1: the kind of its output, stage 2: of its input (HandoffCost's numbering)
    // The SM clock (MHz) read right before and right after its timing (measure::MeasureResult); 0 when not read.
    double sm_mhz_before = 0;
    double sm_mhz_after = 0;
};

// The time (µs) of what runs between a stage 1 of output kind `output` and a stage 2 of input kind
// `input`, outside both stages' times; nullopt when no such pair can run (or its time is unknown).
using HandoffCost = std::function<std::optional<double>(int output, int input)>;

struct StagePick {
    std::string kernel_name;
    double us = 0;
    double err = 0;
};

// The fastest passing stage 1 and stage 2 of one block_m, with what runs between them.
struct PairChoice {
    int block_m = 0;
    StagePick stage1;
    StagePick stage2;
    double handoff_us = 0;  // HandoffCost's time for the pair's kinds: counted in the row's us1
    double us1() const { return stage1.us + handoff_us; }
    double us() const { return us1() + stage2.us; }
};

struct Selection {
    std::optional<PairChoice> winner;
    // The best pair of another block_m (the next in the ranking of per-block_m pairs): how much
    // the winning sort block size is worth. nullopt when only one block_m has a pair.
    std::optional<PairChoice> runner_up;
    // block_m values where one stage has passing kernels and the other none (AITER warns about
    // these), or where no passing stage 1 can hand its output to a passing stage 2.
    std::vector<int> unpaired_block_m;
};

// Ran and was timed: ok and a positive finite time (AITER's markers of failure are -1 and inf).
bool measured(const CandidateResult& r);
// Takes part in the selection: measured and err <= err_ratio.
bool passes(const CandidateResult& r, double err_ratio);

// No `cost`: nothing between the stages, every pair runs (AITER's rule).
Selection select_winner(const std::vector<CandidateResult>& results, double err_ratio, const HandoffCost& cost = {});

}  // namespace moetune::select
