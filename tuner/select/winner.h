#pragma once
// AITER's winner rule for a two-stage MoE (FmoeTuner.post_process, aiter-fmoe-format.md §3.7),
// made deterministic: drop candidates that failed or whose error exceeds err_ratio; per block_m
// keep the fastest stage 1 and the fastest stage 2; pair them on block_m; the winner is the pair
// with the smallest us1 + us2. AITER breaks ties by pandas row order (whatever order the workers
// finished in); here every tie has a fixed rule, so the same measurements always give the same row
// however the work was spread over GPUs:
//   per stage and block_m, equal us -> the lexicographically smallest kernel name;
//   between pairs, equal us1 + us2 -> the smaller block_m.
#include <cstddef>
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
};

struct StagePick {
    std::string kernel_name;
    double us = 0;
    double err = 0;
};

// The fastest passing stage 1 and stage 2 of one block_m.
struct PairChoice {
    int block_m = 0;
    StagePick stage1;
    StagePick stage2;
    double us() const { return stage1.us + stage2.us; }
};

struct Selection {
    std::optional<PairChoice> winner;
    // The best pair of another block_m (the next in the ranking of per-block_m pairs): how much
    // the winning sort block size is worth. nullopt when only one block_m has a pair.
    std::optional<PairChoice> runner_up;
    // block_m values where one stage has passing kernels and the other none (AITER warns about these).
    std::vector<int> unpaired_block_m;
};

// Ran and was timed: ok and a positive finite time (AITER's markers of failure are -1 and inf).
bool measured(const CandidateResult& r);
// Takes part in the selection: measured and err <= err_ratio.
bool passes(const CandidateResult& r, double err_ratio);

Selection select_winner(const std::vector<CandidateResult>& results, double err_ratio);

}  // namespace moetune::select
