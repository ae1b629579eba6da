#include "sweep/summary.h"

#include <spdlog/fmt/fmt.h>

#include "sweep/plan.h"

namespace moetune::sweep {
namespace {

std::string shape_heading(const table::TableShape& s) {
    return fmt::format("model_dim {} inter_dim {} expert {} topk {} {} {} {} {} {} use_g1u1 {} doweight_stage1 {}",
                       s.model_dim, s.inter_dim, s.expert, s.topk, s.act_type, s.dtype, s.q_dtype_a, s.q_dtype_w,
                       s.q_type, s.use_g1u1 ? 1 : 0, s.doweight_stage1 ? 1 : 0);
}

}  // namespace

std::string format_summary(const std::vector<BucketReport>& buckets) {
    std::string out;
    std::string heading;
    for (const BucketReport& b : buckets) {
        if (const std::string h = shape_heading(b.shape); h != heading) {
            heading = h;
            out += heading + "\n";
            out += fmt::format("  {:>6}  {:<13}  {:>7}  {:>12}  {:>10}  {}\n", "token", "status", "block_m", "us",
                               "tried", "kernelName1 + kernelName2");
        }
        const std::string block_m = b.winner ? std::to_string(b.winner->block_m) : "-";
        const std::string us = b.winner ? fmt::format("{:.4f}", b.winner->us()) : "-";
        const std::string tried = b.tried ? fmt::format("{}/{}", b.tried - b.failed - b.over_err_ratio, b.tried) : "-";
        const std::string kernels =
            b.winner ? b.winner->stage1.kernel_name + " + " + b.winner->stage2.kernel_name : b.reason;
        out += fmt::format("  {:>6}  {:<13}  {:>7}  {:>12}  {:>10}  {}\n", b.shape.token, status_name(b.status),
                           block_m, us, tried, kernels);
    }
    return out;
}

std::string format_not_finished(const std::vector<BucketReport>& buckets) {
    std::string list;
    std::size_t count = 0;
    for (const BucketReport& b : buckets) {
        if (!leaves_unfinished(b.status)) continue;
        ++count;
        list += fmt::format("  {} ({}): {}: {}\n", short_label(b.shape), b.where, status_name(b.status), b.reason);
    }
    if (count == 0) return "";
    return fmt::format("[Tuning not Finished] {} of {} (shape, bucket) entries have no row:\n", count, buckets.size()) +
           list;
}

}  // namespace moetune::sweep
