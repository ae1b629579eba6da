#pragma once
// Screening: every candidate of a bucket is first validated and timed briefly (a few replays);
// only the finalists -- within `margin` of the fastest passing candidate of their stage, block_m
// and kind -- are timed in full. The winner rule pairs the fastest stage 1 and stage 2 of each kind
// per block_m, so a candidate far slower than the best of its (stage, block_m, kind) cannot win and
// needs no precise time.
// With ~10% finalists this cuts a bucket's timing several-fold (docs/sweep.md).
#include <cstddef>
#include <vector>

#include "select/winner.h"

namespace moetune::select {

// Indices (ascending) of the passing candidates whose us <= margin * the fastest passing us of the
// same stage, block_m and kind. margin >= 1; failed and over-err_ratio candidates are never finalists.
std::vector<std::size_t> screening_finalists(const std::vector<CandidateResult>& results, double err_ratio,
                                             double margin);

}  // namespace moetune::select
