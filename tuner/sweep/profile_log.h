#pragma once
// `--profile-out ALL.csv`: every candidate's outcome, not only the winners (AITER's -o2): which
// kernels failed and why, how close the runners-up were. One CSV record per candidate:
//   gfx,cu_num,<12 shape columns>,stage,block_m,kernelName,us,err,spread_pct,status,failure
// status is candidate_outcome.h's "pass", "err>ratio" or "failed" (compile, launch, crash,
// timeout, no usable time: the reason is in `failure`). us is in µs (4 decimals), err the gating
// metric as a ratio, spread_pct the run-to-run spread of the timing. Appended per (shape, bucket), atomically like OUT, so it is as complete as OUT.
#include <filesystem>
#include <string>
#include <vector>

#include "sweep/candidate_outcome.h"
#include "table/table_shape.h"

namespace moetune::sweep {

// Throws InputError when `path` exists with another header (not a profile this writes), so the
// check can run before any GPU work.
void check_profile_file(const std::filesystem::path& path);

// Appends one record per candidate of the bucket `shape` (token = the bucket) to `path`, creating
// it with a header. Throws std::runtime_error when it cannot be written.
void append_profile(const std::filesystem::path& path, const std::string& gfx, long long cu_num,
                    const table::TableShape& shape, const std::vector<MeasuredCandidate>& candidates, double err_ratio);

}  // namespace moetune::sweep
