#pragma once
// What a sweep prints on stdout at the end: one line per (shape, bucket) with its status, block_m,
// us and kernels, and -- when something is left untuned -- AITER's "[Tuning not Finished]" block
// listing each such bucket with the reason (the run then exits 1).
#include <string>
#include <vector>

#include "sweep/bucket_report.h"

namespace moetune::sweep {

std::string format_summary(const std::vector<BucketReport>& buckets);

// Empty when every bucket is tuned, kept or already tuned.
std::string format_not_finished(const std::vector<BucketReport>& buckets);

}  // namespace moetune::sweep
