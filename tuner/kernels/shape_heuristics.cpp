#include "kernels/shape_heuristics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>

#include "common/shared_operand_layout.h"
#include "kernels/static_checks.h"

namespace moetune::kernels {
namespace {

constexpr double kMaxOversize = 2.0;         // block_m may be up to 2x the fitting block
constexpr double kMaxBlocksPerExpert = 16.0;  // ... and cut an expert into at most 16 blocks
constexpr int kLargestStreamingBlock = 32;
constexpr double kMaxKGroupWorkgroupsPerSm = 16.0;
// Under this many stage-1 workgroups per SM, the default's stage 1 narrows to 64-wide tiles with
// K-groups of 4 warps (DSv4.1-Flash: one token), and under the second its stage 2 to 64-wide tiles
// (1 and 2 tokens).
constexpr double kDefaultNarrowStage1WorkgroupsPerSm = 1.0;
constexpr double kDefaultNarrowStage2WorkgroupsPerSm = 2.0;
// default_config's occupancy bound (_occ4) from this many expected workgroups of the stage per SM.
constexpr double kDefaultOccupancyWorkgroupsPerSm = 6.0;
// default_config's warpgroup tier (sm_90a) from this fitting sort block on, in tiles of at least one
// warpgroup product's rows (kMxWarpgroupRows; the swapped 32-row tiles are left to the sweep: they
// have no fused MXFP8 output, which every default keeps).
constexpr int kDefaultWgmmaFromBlock = 32;

constexpr int kSmallestBlock = kSortBlockSizes[0];
// The largest sort block of every kernel family (256 rows are _wgmma tiles only, sm_90a): never cut
// for making too many blocks, and the largest of the default's general tiers (its sm_90a _wgmma
// tier takes 256), so that every target keeps candidates and a default at any token count.
constexpr int kLargestBlock = 128;

// The smallest sort block that holds the rows of an average active expert (the largest if none does).
int fitting_block_m(double rows) {
    for (int b : kSortBlockSizes)
        if (b >= rows) return b;
    return kSortBlockSizes[std::size(kSortBlockSizes) - 1];
}

// The default's sort block: the fitting one, but no larger than the largest streaming block (32), and
// no smaller than one that cuts an expert into at most kMaxBlocksPerExpert blocks, which
// block_m_heuristic_reason would prune.
int default_block_m(double rows) {
    const int fit = std::min(fitting_block_m(rows), kLargestStreamingBlock);
    for (int b : kSortBlockSizes)
        if (b >= fit && b <= kLargestBlock && b * kMaxBlocksPerExpert >= rows) return b;
    return kLargestBlock;
}

std::string describe_rows(const data::MoeShape& s) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "~%.1f rows per active expert (%d tokens x topk %d over ~%.0f of %d experts)",
                  rows_per_active_expert(s), s.tokens, s.topk, expected_active_experts(s), s.experts);
    return buf;
}

// Whether the templates build `c` and the static checks let it run `shape` on `limits`.
bool fits(const KernelConfig& c, const data::MoeShape& shape, const DeviceLimits& limits) {
    return !config_error(c) && !static_prune_reason(c, shape, limits);
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
                if (fits(c, shape, limits)) return c;
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

double expected_workgroups(const KernelConfig& c, const data::MoeShape& shape) {
    const int sort_bm = sort_block_m(c);
    const double m_tiles = expected_active_experts(shape) * std::ceil(rows_per_active_expert(shape) / sort_bm) *
                           (sort_bm / c.tile_m);
    const int n = c.stage == Stage::gate_up ? 2 * shape.inter_dim : shape.model_dim;
    return m_tiles * (n / c.tile_n);
}

std::optional<std::string> k_groups_heuristic_reason(const KernelConfig& c, const data::MoeShape& shape,
                                                     const DeviceLimits& limits) {
    if (c.k_warps == 1 || limits.multiprocessors <= 0) return std::nullopt;
    const double workgroups = expected_workgroups(c, shape);
    if (workgroups < kMaxKGroupWorkgroupsPerSm * limits.multiprocessors) return std::nullopt;
    char buf[200];
    std::snprintf(buf, sizeof buf, "heuristic: K-groups with ~%.0f workgroups (%.0f per SM, %d SMs): the grid fills the SMs",
                  workgroups, workgroups / limits.multiprocessors, limits.multiprocessors);
    return buf;
}

std::optional<ConfigPair> default_config(const data::MoeShape& shape, const DeviceLimits& limits) {
    if (shape_error(shape)) return std::nullopt;
    const int block_m = default_block_m(rows_per_active_expert(shape));
    const bool streaming = streams_weights(block_m);
    // Measured on the H200 with the coded FP4 weights (docs/kernel-design.md, "Coded FP4 weights"):
    // the bf16 path won every bucket from 1 to 16384 tokens, in blocks of 32 from 512 to 8192 tokens.
    const MmaPath mma = MmaPath::bf16;

    // Where weights stream, 256-wide tiles of 4 warps with non-temporal loads in both stages: the
    // sweep's pair on the H200 at 4, 64, 128, 256 (block_m 16) and 512 tokens (block_m 32); through
    // FusedMoe 1.09-1.25x faster than the previous default (t16x128x128_w2 + t16x128x512_atomic_w4:
    // 128 tokens 771 against 841 us, 512 tokens 1431 against 1793; docs/benchmarks.md, "Measured
    // with 4-warp K-groups and the faster sort").
    KernelConfig s1;
    s1.stage = Stage::gate_up;
    s1.tile_m = block_m;
    s1.tile_n = streaming ? 256 : 128;
    s1.tile_k = 128;  // the fused epilogue's 64-column warp blocks fit the registers only at K 128
    s1.warps = streaming ? 4 : 8;
    s1.nontemporal_weights = streaming;
    s1.fused_mxfp8_out = true;
    s1.mma = mma;

    KernelConfig s2;
    s2.stage = Stage::down;
    s2.tile_m = s1.tile_m;
    s2.tile_n = streaming ? 256 : 128;
    s2.tile_k = streaming ? 128 : 256;
    s2.warps = streaming ? 4 : 8;
    s2.nontemporal_weights = streaming;
    s2.mode = Stage2Mode::atomic;
    s2.mma = mma;

    // The streaming tiers, by the stage-1 grid's workgroups per SM (an unknown SM count takes none),
    // each stage chosen on its own below. The occupancy bound of 4 workgroups (16 warps per SM, 128
    // registers a thread) where the tile's registers come close enough (16-row tiles; not t32x256)
    // and the stage's grid gives each SM more than a wave of them: on the H200 stage 1 242.9 -> 223.5
    // us at 16 tokens (7.5 workgroups per SM), 455.4 -> 445.8 at 128, 533.9 -> 524.5 at 256, stage 2
    // 119.9 -> 111.6, 218.8 -> 209.7, 267.2 -> 267.8; with 2.5-5 per SM (4 and 8 tokens) the whole MoE
    // ran ~9 % slower bounded (docs/kernel-design.md, "Occupancy bound"). Measured on sm_90a only, so
    // other targets keep the unbounded kernels.
    const double sms = limits.multiprocessors;
    auto bound_where_full = [&](KernelConfig& c) {
        KernelConfig bounded = c;
        bounded.min_workgroups = 4;
        if (limits.arch == "sm_90a" && fits(bounded, shape, limits) &&
            expected_workgroups(bounded, shape) >= kDefaultOccupancyWorkgroupsPerSm * sms)
            c = bounded;
    };
    const double s1_workgroups = expected_workgroups(s1, shape);
    if (streaming && sms > 0 && s1_workgroups >= kDefaultOccupancyWorkgroupsPerSm * sms) {
        bound_where_full(s1);
        bound_where_full(s2);
    } else if (streaming && sms > 0) {
        // Fewer than 6 stage-1 workgroups per SM (DSv4.1-Flash: 1 to 8 tokens): K-groups, the sweep's
        // pairs on the H200. Stage 1: 128-wide tiles with K-groups of 2 from 1 per SM
        // (t16x128x128_w4_nt_mbf16_gui_kw2_fp8, the sweep's at 2, 4 and 8 tokens; 51.8 us at 2), under
        // it (1 token) 64-wide tiles with K-groups of 4 warps (t16x64x128_w4_nt_mbf16_gui_kw4_fp8: 34.2
        // us against 45.2 for the 8-warp t16x64x128_nt_mbf16_gui_kw4 in session 8, 29.8 since).
        // Stage 2: under 2 stage-1 workgroups per SM (1 and 2 tokens) 64-wide tiles with K-groups of 2
        // (t16x64x128_atomic_w4_nt_mbf16_kw2, the sweep's at 1 and 2 tokens: 18.1 and 31.6 us in session
        // 13); from 2 (4 and 8 tokens) 128-wide tiles, with K-groups of 2 while its own grid stays under
        // 6 per SM, else bounded (t16x128x128_atomic_w4_nt_mbf16_kw2 at 4 tokens, ~5.6 per SM;
        // t16x128x128_atomic_w4_occ4_nt_mbf16 at 8, ~10 per SM). As the bench's tuned arm: 2 tokens
        // 86.6-88.2 us against 100.3-101.7 for the previous default (stage 1 kw4 + stage 2
        // t{bm}x128x128 kw2 with cached loads), one token 0.6 us faster to 0.3 us slower within each run
        // (docs/benchmarks.md, session 15); 4 and 8 tokens 149.4-150.2 and 233.9-235.4 us against 150.3
        // and 257.0 for the streaming pair (docs/results/2026-12-02-h200-occupancy-bound).
        KernelConfig k1 = s1, k2 = s2;  // 4 warps, K 128: the streaming tier's
        const bool narrow = s1_workgroups < kDefaultNarrowStage1WorkgroupsPerSm * sms;
        k1.tile_n = narrow ? 64 : 128;
        k1.k_warps = narrow ? 4 : 2;
        if (s1_workgroups < kDefaultNarrowStage2WorkgroupsPerSm * sms) {
            k2.tile_n = 64;
            k2.k_warps = 2;
        } else {
            k2.tile_n = 128;
            if (expected_workgroups(k2, shape) < kDefaultOccupancyWorkgroupsPerSm * sms) k2.k_warps = 2;
            else bound_where_full(k2);
        }
        if (fits(k1, shape, limits)) s1 = k1;
        if (fits(k2, shape, limits)) s2 = k2;
    }

    // Where an average active expert has more than 16 rows (DSv4.1-Flash: the 512-token bucket on),
    // Hopper's warpgroup kernels with shared operands, one warpgroup per 64 rows of the block that
    // fits an expert (at least 64), up to 256 (4 warpgroups). At 512 tokens (~27 rows, fitting block
    // 32) the 64-row tiles win despite the padding: stage 1 t64x256x128_smem_wgmma_gui_fp8 791 us
    // against 861 for the register-fed t32x256x128_w4_nt_gui_fp8, stage 2
    // t64x128x128_atomic_w4_smem_wgmma 397 against 444 (moetune measure on the H200, session 19,
    // docs/results/2026-12-02-h200-default-512). On 64-row blocks stage 1 takes two warpgroups side
    // by side, 256 wide (512 / 1024 tokens: 791 / 798 us against 845 / 838 for one, 128 wide), stage
    // 2 one warpgroup, 128 wide (397 / 427 against 394 / 433 for two). Earlier measurements
    // (docs/kernel-design.md, "Shared operands and wgmma" and "The wgmma loop after profiling"): at
    // 1024 tokens (64-row blocks) stage 1 t64x128x128_w4_smem_wgmma 1019 us and stage 2 524 us,
    // against 1408 and 707 for the 128-row tiles and 1614 and 818 for the best register-fed kernels;
    // from 2048 tokens (128-row blocks) the sweep's winners are t128x128x128_smem_wgmma in both
    // stages (4096 tokens: 2816 + 1553 us, against 3537 + 2033 for the 64-row tiles), and where an
    // expert's rows outgrow 128, 256-row tiles of 4 warpgroups (16 warps; 4096 tokens: 1954 + 1068 us
    // against 2441 + 1312 for the 128-row tiles, "256-row wgmma tiles" in docs/kernel-design.md). On
    // 128-row blocks, 256-wide tiles of two warpgroups side by side per 64 rows (16 warps; 2048
    // tokens: 1140 + 609 us against 1347 + 733 for t128x128 with 8 warps, "Two warpgroups side by
    // side").
    const int fit = fitting_block_m(rows_per_active_expert(shape));
    const int wgmma_rows = std::max(fit, kMxWarpgroupRows);
    if (limits.arch == "sm_90a" && fit >= kDefaultWgmmaFromBlock && !block_m_heuristic_reason(wgmma_rows, shape)) {
        KernelConfig w1 = s1, w2 = s2;
        for (KernelConfig* c : {&w1, &w2}) {
            const bool side_by_side = wgmma_rows == 128 || (wgmma_rows == kMxWarpgroupRows && c == &w1);
            c->tile_m = wgmma_rows;
            c->tile_n = side_by_side ? 256 : 128;
            c->tile_k = 128;
            c->warps = (side_by_side ? 2 : 1) * wgmma_rows / 16;  // warpgroups of 64 rows
            c->k_warps = 1;
            c->min_workgroups = 0;
            c->nontemporal_weights = false;
            c->shared_operands = true;
            c->wgmma = true;
        }
        if (fits(w1, shape, limits) && fits(w2, shape, limits)) return ConfigPair{w1, w2};
    }

    auto fit1 = first_fitting(s1, shape, limits);
    auto fit2 = first_fitting(s2, shape, limits);
    if (!fit1 || !fit2) return std::nullopt;
    return ConfigPair{*fit1, *fit2};
}

}  // namespace moetune::kernels
