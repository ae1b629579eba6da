#pragma once
// `--shard i/n`: one host's part of a plan. Entry k of the plan (in plan order, plan.h) belongs to
// shard k mod n. Round robin rather than contiguous ranges because the plan is sorted by token
// within a shape, and the large buckets take the longest: ranges would give the last shard all of
// them. The union of shards 0..n-1 is the plan and no entry is in two; merging the shards' outputs
// (`moetune merge`) gives the table one host would have written. Shards are cut from the plan
// requests, before --only-missing and before the resume check, so a shard's part depends only on
// the shapes file and --tokens: a rerun of shard i finds its own rows in its own output.
#include <cstddef>
#include <string_view>
#include <vector>

namespace moetune::sweep {

struct Shard {
    int index = 0;  // 0-based (Slurm's SLURM_ARRAY_TASK_ID with --array=0-(n-1))
    int count = 1;
};

// "i/n" with 0 <= i < n. Throws std::invalid_argument saying what is wrong.
Shard parse_shard(std::string_view text);

template <class Entry>
std::vector<Entry> shard_of(const std::vector<Entry>& plan, const Shard& shard) {
    std::vector<Entry> part;
    for (std::size_t k = static_cast<std::size_t>(shard.index); k < plan.size(); k += static_cast<std::size_t>(shard.count))
        part.push_back(plan[k]);
    return part;
}

}  // namespace moetune::sweep
