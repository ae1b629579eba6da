#pragma once
// Which kernels FusedMoe runs at a token count: the row AITER's lookup finds in the tuned tables,
// else the heuristic default (kernels::default_config at the bucket's token count). Running the
// default is logged once per bucket, as AITER logs "using 2stage default"; so is a found row that
// names kernels of another family, which moetune does not build. No GPU needed: the device comes in
// as its AITER key values and limits.
#include <functional>
#include <mutex>
#include <set>
#include <string>

#include "data/moe_problem.h"
#include "kernels/device_limits.h"
#include "kernels/shape_heuristics.h"
#include "moetune/tuned_tables.h"

namespace moetune::runtime {

struct BucketPlan {
    KernelPlan plan;
    kernels::ConfigPair configs;
};

// The key values a tuned row must match to be looked up on a device.
struct DeviceKey {
    std::string gfx;  // "sm_90", "gfx950"
    int cu_num = 0;
};

class BucketPlanner {
public:
    using Log = std::function<void(const std::string&)>;

    // Throws std::invalid_argument when moetune's kernels do not implement the shape.
    BucketPlanner(MoeShapeKey shape, TunedTables tables, DeviceKey device, kernels::DeviceLimits limits, Log log);

    // Thread-safe. Throws TableError for a row whose moetune kernels cannot run the shape on the
    // device, read rebased rows wider than FusedMoe quantises to, or whose stage 1 cannot hand its
    // output to its stage 2 (kernels::handoff_error), std::runtime_error when no
    // default fits it, std::invalid_argument for tokens < 1.
    BucketPlan plan(int tokens) const;

    // The shape as the kernels' problem; its token count is a placeholder.
    const data::MoeShape& problem() const { return problem_; }

private:
    BucketPlan tuned(const KernelPlan& row) const;
    BucketPlan heuristic(long long bucket) const;
    void log_once(long long bucket, const std::string& line) const;

    MoeShapeKey shape_;
    data::MoeShape problem_;
    TunedTables tables_;
    DeviceKey device_;
    kernels::DeviceLimits limits_;
    Log log_;
    mutable std::mutex logged_mutex_;
    mutable std::set<long long> logged_;  // buckets already logged
};

}  // namespace moetune::runtime
