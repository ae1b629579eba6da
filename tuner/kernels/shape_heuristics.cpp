#include "kernels/shape_heuristics.h"

#include <cmath>
#include <cstdio>
#include <iterator>

#include "kernels/static_checks.h"

namespace moetune::kernels {
namespace {

constexpr double kMaxOversize = 2.0;         // block_m may be up to 2x the fitting block
constexpr double kMaxBlocksPerExpert = 16.0;  // ... and cut an expert into at most 16 blocks
constexpr int kLargestStreamingBlock = 32;

constexpr int kSmallestBlock = kSortBlockSizes[0];
constexpr int kLargestBlock = kSortBlockSizes[std::size(kSortBlockSizes) - 1];

// The smallest sort block that holds the rows of an average active expert (the largest if none does).
int fitting_block_m(double rows) {
    for (int b : kSortBlockSizes)
        if (b >= rows) return b;
    return kLargestBlock;
}

std::string describe_rows(const data::MoeShape& s) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "~%.1f rows per active expert (%d tokens x topk %d over ~%.0f of %d experts)",
                  rows_per_active_expert(s), s.tokens, s.topk, expected_active_experts(s), s.experts);
    return buf;
}

// Tries the preferred config, then shrinks it step by step until the static checks pass.
std::optional<KernelConfig> first_fitting(const KernelConfig& preferred, const data::MoeShape& shape,
                                          const DeviceLimits& limits) {
    for (int tile_n = preferred.tile_n; tile_n >= warp_n_granule(preferred); tile_n /= 2) {
        for (int tile_k = preferred.tile_k; tile_k >= kKChunk; tile_k /= 2) {
            for (int warps = preferred.warps; warps >= 1; warps /= 2) {
                KernelConfig c = preferred;
                c.tile_n = tile_n;
                c.tile_k = tile_k;
                c.warps = warps;
                if (!config_error(c) && !static_prune_reason(c, shape, limits)) return c;
            }
        }
    }
    return std::nullopt;
}

}  // namespace

bool streams_weights(int block_m) { return block_m <= kLargestStreamingBlock; }

double expected_active_experts(const data::MoeShape& s) {
    const double p_untouched = std::pow(1.0 - double(s.topk) / s.experts, s.tokens);
    return s.experts * (1.0 - p_untouched);
}

double rows_per_active_expert(const data::MoeShape& s) {
    return double(s.tokens) * s.topk / expected_active_experts(s);
}

std::optional<std::string> block_m_heuristic_reason(int block_m, const data::MoeShape& shape) {
    const double rows = rows_per_active_expert(shape);
    const int fit = fitting_block_m(rows);
    if (block_m > kSmallestBlock && block_m > kMaxOversize * fit)
        return "heuristic: block_m " + std::to_string(block_m) + " is mostly padding at " + describe_rows(shape);
    if (block_m < kLargestBlock && block_m * kMaxBlocksPerExpert < rows)
        return "heuristic: block_m " + std::to_string(block_m) + " cuts each expert into more than " +
               std::to_string(int(kMaxBlocksPerExpert)) + " blocks at " + describe_rows(shape);
    return std::nullopt;
}

std::optional<ConfigPair> default_config(const data::MoeShape& shape, const DeviceLimits& limits) {
    if (shape_error(shape)) return std::nullopt;
    const int block_m = fitting_block_m(rows_per_active_expert(shape));
    const bool streaming = streams_weights(block_m);
    // Measured on the H200 (docs/kernel-design.md): while the weights stream, the bf16 path's
    // cheaper block step wins by 12-21 % (t16 tiles, both stages); with 128-row tiles the FP8 one
    // is 2-8 % faster.
    const MmaPath mma = streaming ? MmaPath::bf16 : MmaPath::fp8;

    KernelConfig s1;
    s1.stage = Stage::gate_up;
    s1.tile_m = block_m;
    s1.tile_n = 128;
    s1.tile_k = 128;  // the fused epilogue's 64-column warp blocks fit the registers only at K 128
    s1.warps = 8;
    s1.nontemporal_weights = streaming;
    s1.fused_mxfp8_out = true;
    s1.mma = mma;

    KernelConfig s2;
    s2.stage = Stage::down;
    s2.tile_m = s1.tile_m;
    s2.tile_n = 128;
    s2.tile_k = streaming ? 512 : 256;
    s2.warps = streaming ? 4 : 8;
    s2.nontemporal_weights = streaming;
    s2.mode = Stage2Mode::atomic;
    s2.mma = mma;

    auto fit1 = first_fitting(s1, shape, limits);
    auto fit2 = first_fitting(s2, shape, limits);
    if (!fit1 || !fit2) return std::nullopt;
    return ConfigPair{*fit1, *fit2};
}

}  // namespace moetune::kernels
