#pragma once
// Every shape heuristic in one place (like DeepGEMM's): how many rows each active expert gets at a
// token count, which sort-block sizes are worth trying there (a heuristic prune, overridable), and
// the default config pair used when no tuned row exists.
#include <optional>
#include <string>

#include "data/moe_problem.h"
#include "kernels/device_limits.h"
#include "kernels/kernel_config.h"

namespace moetune::kernels {

// Experts expected to receive at least one row when shape.tokens tokens each pick topk of the
// experts uniformly: E * (1 - (1 - topk/E)^M). Matches the measured counts of
// performance-anchors.md (5, 10, 17, 35, 55, 78, 96 for DSv4.1-Flash at 1..64 tokens).
double expected_active_experts(const data::MoeShape& shape);
// Routed rows (tokens x topk) per active expert.
double rows_per_active_expert(const data::MoeShape& shape);

// Heuristic: a sort block (block_m) is not worth trying when it is more than twice the smallest
// block that holds an active expert's rows (mostly padding), or when it cuts each active expert
// into more than 16 blocks (every block re-reads the expert's weights; at that size the MoE is
// compute-bound and larger tiles win). Never prunes the smallest or the largest block.
// Returns the reason, starting with "heuristic:", or nullopt to keep.
std::optional<std::string> block_m_heuristic_reason(int block_m, const data::MoeShape& shape);

// The workgroups a config's grid is expected to have: expected active experts x their sort blocks
// (of rows_per_active_expert rows each) x tiles per sort block x N tiles.
double expected_workgroups(const KernelConfig& c, const data::MoeShape& shape);

// Heuristic: K-groups (k_warps > 1) add warps to each workgroup, which pays only while the grid is
// too small to give every SM warps of its own; when the config's grid (expected active experts x
// their sort blocks x N tiles) has 16 or more workgroups per SM (limits.multiprocessors), the SMs
// are already as full as registers allow and the K-groups' shared-memory sum only costs. For
// DSv4.1-Flash on the H200 that keeps them up to ~16 tokens. Reason starting with "heuristic:", or
// nullopt to keep (always for k_warps 1).
std::optional<std::string> k_groups_heuristic_reason(const KernelConfig& c, const data::MoeShape& shape,
                                                     const DeviceLimits& limits);

// Whether the MoE streams weights at sort block block_m: blocks of at most 32 rows, which
// block_m_heuristic_reason keeps while an active expert has up to ~64 rows (AITER's use_nt rule:
// below 64 rows per expert the weights dominate). Candidates of these blocks carry the streaming
// knobs (non-temporal weight loads, 4-chunk prefetch); larger blocks reuse each weight tile over
// more rows and are bound by the tensor cores.
bool streams_weights(int block_m);

struct ConfigPair {
    KernelConfig stage1;
    KernelConfig stage2;
};

// The config pair used when no tuned row exists, in the spirit of AITER's FlyDSL fallback tiers
// (aiter-fmoe-format.md §2.4) but tiered by rows per active expert instead of raw token count:
// block_m = the smallest sort block holding an expert's rows, at most 32 unless that cuts an expert
// into more than 16 blocks (then the smallest block that does not), both stages' tile_m. Both stages
// take the bf16 MMA path, stage 1 fuses the MXFP8 output at K 128 per prefetch, stage 2 is atomic.
//  - When streams_weights(block_m): 256-wide N tiles of 4 warps with non-temporal loads and K 128 in
//    both stages, on sm_90a with the occupancy bound _occ4 where it fits and the stage's grid gives
//    each SM 6 workgroups or more; with 2 to 6 stage-1 workgroups per SM, 128-wide tiles with K-groups
//    of 2 (stage 2: K-groups under 6 per SM of its own, else _occ4); under 2, stage 2 t{bm}x64x128
//    _w4_kw2, and stage 1 the 128-wide tiles with K-groups of 2 from 1 per SM, t{bm}x64x128 _w4_kw4
//    under it.
//  - Else 128-wide tiles of 8 warps, stage 2 at K 256 with cached loads; on sm_90a, where an average
//    active expert fills a 64-row sort block, warpgroup kernels with shared operands instead
//    (t{rows}x128x128 _smem_wgmma, one warpgroup per 64 rows, up to 128).
// Each tier's pair is the H200 sweep's winner at buckets it covers (docs/kernel-names.md, "Default
// config"). When a preferred config does not fit the shape or the device, the first fitting one
// found by shrinking warps, then tile_k, then tile_n. nullopt when shape_error(shape) or nothing fits.
std::optional<ConfigPair> default_config(const data::MoeShape& shape, const DeviceLimits& limits);

}  // namespace moetune::kernels
