#include "runtime/bucket_planner.h"

#include <stdexcept>

#include "data_gpu/mxfp8_quant_gpu.h"
#include "kernels/kernel_name.h"
#include "kernels/stage_handoff.h"
#include "kernels/static_checks.h"
#include "runtime/shape_key.h"
#include "runtime/tuned_row_check.h"
#include "table/bucket.h"

namespace moetune::runtime {
namespace {

data::MoeShape problem_of(const MoeShapeKey& shape) {
    std::string why;
    const std::optional<data::MoeShape> problem = kernel_problem(shape, 1, &why);
    if (!problem) throw std::invalid_argument("FusedMoe: " + why);
    return *problem;
}

std::string names(const kernels::ConfigPair& c) {
    return kernels::kernel_name(c.stage1) + " + " + kernels::kernel_name(c.stage2);
}

// Why FusedMoe::run cannot make the rebased rows a kernel of `c` reads (kernels::reads_rebased_rows):
// it quantises the hidden states, and stage 1's bf16 output, straight to them
// (data::enqueue_quantize_mxfp8_bf16_rebased, at most data::kQuantizeRebasedMaxCols columns); a
// fused MXFP8 stage-1 output is rebased instead (data::enqueue_rebase_mxfp8, any width). Checked here
// so that the row is refused when planned, not at its first launch. nullopt when it can.
std::optional<std::string> rebased_rows_error(const kernels::ConfigPair& c, const data::MoeShape& shape) {
    const auto too_wide = [](const kernels::KernelConfig& k, const char* dim, int cols) {
        return kernels::kernel_name(k) + " reads rebased rows, quantised to them only up to " +
               std::to_string(data::kQuantizeRebasedMaxCols) + " columns, but " + dim + " is " + std::to_string(cols);
    };
    if (kernels::reads_rebased_rows(c.stage1) && shape.model_dim > data::kQuantizeRebasedMaxCols)
        return too_wide(c.stage1, "model_dim", shape.model_dim);
    if (kernels::reads_rebased_rows(c.stage2) && !c.stage1.fused_mxfp8_out &&
        shape.inter_dim > data::kQuantizeRebasedMaxCols)
        return too_wide(c.stage2, "inter_dim", shape.inter_dim);
    return std::nullopt;
}

}  // namespace

BucketPlanner::BucketPlanner(MoeShapeKey shape, TunedTables tables, DeviceKey device, kernels::DeviceLimits limits,
                             Log log)
    : shape_(std::move(shape)),
      problem_(problem_of(shape_)),
      tables_(std::move(tables)),
      device_(std::move(device)),
      limits_(std::move(limits)),
      log_(std::move(log)) {}

BucketPlan BucketPlanner::plan(int tokens) const {
    if (tokens < 1) throw std::invalid_argument("plan: tokens must be >= 1, got " + std::to_string(tokens));
    const std::optional<KernelPlan> row = tables_.lookup(shape_, tokens, device_.gfx, device_.cu_num);
    const long long bucket = table::padded_m(tokens);
    if (!row) {
        BucketPlan p = heuristic(bucket);
        log_once(bucket, "no tuned row for (" + describe_key(shape_, bucket, device_.gfx, device_.cu_num) +
                             "); using the heuristic default " + names(p.configs));
        return p;
    }
    if (moetune_config_pair(*row)) return tuned(*row);
    BucketPlan p = heuristic(bucket);
    log_once(bucket, row->source + " names " + row->kernel_name1 + " + " + row->kernel_name2 +
                         ", not moetune kernels; using the heuristic default " + names(p.configs));
    return p;
}

BucketPlan BucketPlanner::tuned(const KernelPlan& row) const {
    const kernels::ConfigPair configs = *moetune_config_pair(row);
    data::MoeShape at_bucket = problem_;
    at_bucket.tokens = static_cast<int>(row.bucket);
    for (const kernels::KernelConfig& c : {configs.stage1, configs.stage2})
        if (auto reason = kernels::static_prune_reason(c, at_bucket, limits_))
            throw TableError(row.source + ": " + kernels::kernel_name(c) + " cannot run this shape on " +
                             limits_.arch + ": " + *reason);
    if (auto reason = rebased_rows_error(configs, problem_)) throw TableError(row.source + ": " + *reason);
    if (configs.stage1.gemv || configs.stage2.gemv)  // (the tuner measures them; docs/kernel-design.md)
        throw TableError(row.source + ": " + names(configs) + ": the library does not run _gemv kernels yet");
    if (auto reason = kernels::handoff_error(configs.stage1, configs.stage2))
        throw TableError(row.source + ": " + names(configs) + ": " + std::string(*reason));
    return {row, configs};
}

BucketPlan BucketPlanner::heuristic(long long bucket) const {
    data::MoeShape at_bucket = problem_;
    at_bucket.tokens = static_cast<int>(bucket);
    const std::optional<kernels::ConfigPair> configs = kernels::default_config(at_bucket, limits_);
    if (!configs)
        throw std::runtime_error("no kernel configuration fits " +
                                 describe_key(shape_, bucket, device_.gfx, device_.cu_num) + " on " + limits_.arch);
    KernelPlan plan;
    plan.bucket = bucket;
    plan.block_m = kernels::sort_block_m(configs->stage1);
    plan.kernel_name1 = kernels::kernel_name(configs->stage1);
    plan.kernel_name2 = kernels::kernel_name(configs->stage2);
    plan.source = "heuristic default";
    return {plan, *configs};
}

void BucketPlanner::log_once(long long bucket, const std::string& line) const {
    {
        const std::lock_guard<std::mutex> lock(logged_mutex_);
        if (!logged_.insert(bucket).second) return;
    }
    log_("moetune: " + line);
}

}  // namespace moetune::runtime
