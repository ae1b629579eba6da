#include "kernels/static_checks.h"

#include "kernels/resource_model.h"

namespace moetune::kernels {
namespace {

using std::to_string;

// moe_sorting packs (slot << 24) | token into one int32 (aiter-fmoe-format.md §5).
constexpr int kMaxTokens = (1 << 24) - 1;
constexpr int kMaxTopk = 255;
constexpr int kLanesPerWarp = 32;

}  // namespace

int threads_per_block(const KernelConfig& c) { return c.warps * kLanesPerWarp; }

std::optional<std::string> shape_error(const data::MoeShape& s) {
    if (s.tokens < 1 || s.tokens > kMaxTokens)
        return "token " + to_string(s.tokens) + " is outside 1.." + to_string(kMaxTokens);
    // model_dim is K of stage 1, inter_dim K of stage 2; both kernels walk K in 128-wide chunks.
    if (s.model_dim <= 0 || s.model_dim % kKChunk != 0)
        return "model_dim " + to_string(s.model_dim) + " is not a positive multiple of 128 (the kernels' K chunk)";
    if (s.inter_dim <= 0 || s.inter_dim % kKChunk != 0)
        return "inter_dim " + to_string(s.inter_dim) + " is not a positive multiple of 128 (the kernels' K chunk)";
    if (s.experts < 1) return "expert " + to_string(s.experts) + " must be at least 1";
    if (s.topk < 1 || s.topk > kMaxTopk || s.topk > s.experts)
        return "topk " + to_string(s.topk) + " must be 1.." + to_string(kMaxTopk) + " and at most expert (" +
               to_string(s.experts) + ")";
    return std::nullopt;
}

std::optional<std::string> static_prune_reason(const KernelConfig& c, const data::MoeShape& s,
                                               const DeviceLimits& limits) {
    // GEMM sizes: stage 1 is [rows x model_dim] x [model_dim x 2*inter], stage 2 [rows x inter] x [inter x model_dim].
    const bool stage1 = c.stage == Stage::gate_up;
    const int n = stage1 ? 2 * s.inter_dim : s.model_dim;
    const int k = stage1 ? s.model_dim : s.inter_dim;
    const char* n_what = stage1 ? "2*inter_dim" : "model_dim";
    const char* k_what = stage1 ? "model_dim" : "inter_dim";
    if (n % c.tile_n != 0) return "tile_n " + to_string(c.tile_n) + " does not divide " + n_what + " " + to_string(n);
    // The kernels handle a last, partial prefetch group; a group longer than all of K only loads nothing.
    if (c.tile_k > k) return "tile_k " + to_string(c.tile_k) + " exceeds " + k_what + " " + to_string(k);

    if (c.gemv && s.tokens > kGemvMaxTokens)
        return "gemv serves at most " + to_string(kGemvMaxTokens) + " tokens (a sort block's rows are its product's columns)";
    if (c.eight_rows && s.tokens > kEightRowsMaxTokens)
        return "r8 serves at most " + to_string(kEightRowsMaxTokens) +
               " tokens (its products cover a tile's first 8 rows, all that so few tokens fill)";
    if (c.wgmma && limits.arch != "sm_90a") return "wgmma needs sm_90a (Hopper), not " + limits.arch;
    if (!warp_grid(c))
        return to_string(c.warps) + " warps cannot split a " + to_string(c.tile_m) + "x" + to_string(c.tile_n) +
               " tile into warp blocks of whole 16-row x " + to_string(warp_n_granule(c)) + "-column units";
    const int threads = threads_per_block(c);
    if (threads > limits.max_threads_per_block)
        return to_string(threads) + " threads exceed " + to_string(limits.max_threads_per_block) + " per block (" +
               limits.arch + ")";

    const ResourceEstimate r = estimate_resources(c);
    if (r.shared_memory_bytes > limits.max_shared_memory_per_block)
        return "shared memory ~" + to_string(r.shared_memory_bytes) + " B exceeds " +
               to_string(limits.max_shared_memory_per_block) + " B (" + limits.arch + ")";
    if (r.registers_per_thread > limits.max_registers_per_thread)
        return "registers ~" + to_string(r.registers_per_thread) + " per thread exceed " +
               to_string(limits.max_registers_per_thread) + " (" + limits.arch + ")";
    if (r.registers_per_thread * threads > limits.registers_per_block)
        return "registers ~" + to_string(r.registers_per_thread) + " x " + to_string(threads) + " threads exceed " +
               to_string(limits.registers_per_block) + " per block (" + limits.arch + ")";
    if (c.min_workgroups > 0) {
        const int cap = occupancy_register_cap(c, limits);
        if (r.registers_per_thread > cap + kOccupancySpillAllowance)
            return "registers ~" + to_string(r.registers_per_thread) + " per thread exceed the " +
                   to_string(cap) + " of occ" + to_string(c.min_workgroups) + " by more than " +
                   to_string(kOccupancySpillAllowance) + " (" + limits.arch + ")";
    }
    return std::nullopt;
}

int occupancy_register_cap(const KernelConfig& c, const DeviceLimits& limits) {
    const int workgroups = c.min_workgroups > 0 ? c.min_workgroups : 1;
    return limits.registers_per_block / (workgroups * threads_per_block(c)) / 8 * 8;
}

}  // namespace moetune::kernels
