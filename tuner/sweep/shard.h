#pragma once
// `--shard i/n`: one host's part of a plan. Entry k of the plan (in plan order, plan.h) belongs to
// shard k mod n. Round robin rather than contiguous ranges because the plan is sorted by token
// within a shape, and the large buckets take the longest: ranges would give the last shard all of
// them. The union of shards 0..n-1 is the plan and no entry is in two; merging the shards' outputs
// (`moetune merge`) gives the table one host would have written.
#include <string_view>
#include <vector>

#include "sweep/plan.h"

namespace moetune::sweep {

struct Shard {
    int index = 0;  // 0-based (Slurm's SLURM_ARRAY_TASK_ID with --array=0-(n-1))
    int count = 1;
};

// "i/n" with 0 <= i < n. Throws std::invalid_argument saying what is wrong.
Shard parse_shard(std::string_view text);

std::vector<PlanEntry> shard_entries(const std::vector<PlanEntry>& plan, const Shard& shard);

}  // namespace moetune::sweep
