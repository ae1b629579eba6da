#pragma once
// Times taken at different SM clocks do not compare: an H100 moves its SM clock in 15 MHz steps
// (1965-2100 MHz seen, while nvidia-smi said 1980) and a kernel's time follows it by up to ~4 %
// (docs/measurement.md, "Timing"). The winner rule compares the candidates of one stage,
// block_m and kind; where their timings met different clocks, the ones close enough to the fastest
// that the clocks could have reversed the order are timed again by the sweep, interleaved so that
// all of them meet the same clocks (docs/sweep.md, "Clock recheck").
#include <cstddef>
#include <vector>

#include "select/winner.h"

namespace moetune::select {

// Clock readings this close (a ratio of 1 + tolerance) are one clock: the probe reads one clock
// within ~0.2 %, and the H100's steps are 15 MHz (0.75 % at 2 GHz).
inline constexpr double kSameClockTolerance = 0.005;

// Indices (ascending) of the passing candidates to time again. Per stage, block_m and kind: let q be
// the highest over the lowest clock reading (before and after) of its passing candidates; if q is
// above 1 + tolerance, those whose us <= q * the fastest's us, when there are two or more of them.
// A reading of 0 (not read) is left out; a group without readings gives nothing.
std::vector<std::size_t> clock_recheck(const std::vector<CandidateResult>& results, double err_ratio,
                                       double tolerance = kSameClockTolerance);

}  // namespace moetune::select
