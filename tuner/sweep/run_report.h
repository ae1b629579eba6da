#pragma once
// `--report RUN.json`: the run's settings and one object per (shape, bucket) of the plan (this
// shard's part), in plan order: status, winner and runner-up (kernels, us, err, block_m), previous
// us, candidates tried / failed / over err-ratio / pruned, and the wall time spent waiting for
// compilation and measuring. Rewritten atomically after every bucket ("finished": false) and at
// the end ("finished": true), so a killed run leaves a report of what it did. Layout: docs/sweep.md.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/bucket_report.h"
#include "sweep/sweep_settings.h"

namespace moetune::sweep {

nlohmann::ordered_json report_json(const SweepSettings& settings, const std::vector<BucketReport>& buckets, bool finished);

// Throws std::runtime_error when the file cannot be written.
void write_report(const std::filesystem::path& path, const SweepSettings& settings, const std::vector<BucketReport>& buckets,
                  bool finished);

}  // namespace moetune::sweep
