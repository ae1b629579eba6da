#include "kernels/candidates.h"

#include <algorithm>
#include <initializer_list>
#include <stdexcept>
#include <utility>

#include "common/shared_operand_layout.h"
#include "kernels/kernel_name.h"
#include "kernels/resource_model.h"
#include "kernels/shape_heuristics.h"
#include "kernels/static_checks.h"

namespace moetune::kernels {
namespace {

// Replaces every config of `space` by one copy per value, set by `set`.
template <class T, class Setter>
void vary(std::vector<KernelConfig>& space, std::initializer_list<T> values, Setter set) {
    std::vector<KernelConfig> next;
    next.reserve(space.size() * values.size());
    for (const KernelConfig& c : space)
        for (const T& v : values) {
            KernelConfig d = c;
            set(d, v);
            next.push_back(d);
        }
    space = std::move(next);
}

// Weight-streaming knobs (non-temporal loads, 4-chunk prefetch) only on the sort blocks where the
// MoE streams weights (shape_heuristics.h).
bool streaming_knobs_in_regime(const KernelConfig& c) {
    return streams_weights(sort_block_m(c)) || (!c.nontemporal_weights && c.tile_k < 512);
}

// Stage 2's reduce mode is the deterministic alternative to atomics: one plain variant per tile
// (cached loads, sort block = tile). Atomic tiles carry the load and sort-block variants.
bool plain_if_reduce(const KernelConfig& c) {
    return c.stage != Stage::down || c.mode == Stage2Mode::atomic || (!c.nontemporal_weights && c.sort_block == 0);
}

// 8 stage-2 warps (of one K-group) on 64 columns make 8- or 16-column warp blocks that reload the
// activation fragment for every 8-16 columns; 4 warps cover those tiles. (_wgmma warps split the
// rows, each over the whole width.)
bool wide_enough_for_warps(const KernelConfig& c) {
    return c.stage != Stage::down || c.wgmma || c.tile_n >= 16 * (c.warps / c.k_warps);
}

// K-groups put more weight loads in flight per tile, which pays where a few tiles stream weights
// (few tokens); where tiles reuse weights over many rows there are enough tiles and the extra
// shared-memory sum only costs. They come with 8 warps (2 groups of 4 or 4 of 2: the loads of 8
// warps per tile) and 1-2 chunks per prefetch (the groups are what keeps loads in flight), or with 4
// warps (2 groups of 2 or 4 of 1) and one chunk: fewer registers per workgroup, so at one token the
// 360 stage-1 workgroups of 64 W1 rows fit the SMs in one wave instead of 1.4.
bool k_groups_in_regime(const KernelConfig& c) {
    const bool group_form = (c.warps == 8 && c.tile_k <= 256) || (c.warps == 4 && c.tile_k == kKChunk);
    return c.k_warps == 1 || (streams_weights(sort_block_m(c)) && group_form);
}

// The occupancy bound (_occ4: four workgroups of 4 warps, 16 warps per SM, at most 128 registers a
// thread) on the register-fed bf16 loop with one chunk a prefetch and no K-groups, where weights
// stream: the loop is latency-bound at 12 warps per SM (3 workgroups at 158-166 registers), and 16
// measured up to 8 % faster with 16-72 bytes of spill. Deeper prefetches (tile_k 512) ran slower
// with it, K-group kernels at one token too (their grid, not their registers, sets the warps per
// SM), 5 and 6 workgroups spilled far more than they gained (docs/kernel-design.md, "Occupancy
// bound").
bool occupancy_bound_in_regime(const KernelConfig& c) {
    return c.min_workgroups == 0 ||
           (c.min_workgroups == 4 && c.warps == 4 && c.k_warps == 1 && c.tile_k == kKChunk && !c.shared_operands &&
            c.mma == MmaPath::bf16 && streams_weights(sort_block_m(c)));
}

// Shared operands pay where each weight tile serves many rows (sort blocks of 32 and more); they
// load through the cache (the tile's weights are read once per workgroup either way) with 4 or 8
// warps to share the staging.
bool shared_operands_in_regime(const KernelConfig& c) {
    return !c.shared_operands || (c.tile_m >= 32 && !c.nontemporal_weights && c.warps >= 4);
}

// Sort blocks of 256 rows and 16 warps come only as the four warpgroups of a 256-row _wgmma tile
// (or its half in stage 2, _sbm256): each widened weight serves 256 rows there, which is what
// pays at thousands of tokens; the loops that widen per warp gain nothing from them.
bool warpgroup_tiles_only(const KernelConfig& c) {
    return c.wgmma || (sort_block_m(c) < 256 && c.warps <= 8);
}

// The register-fed FP8 warpgroup kernels decode the weights they stream: where weights
// stream, with streaming loads. (Their 32-row tiles under 64-row sort blocks, to pair with the 64-row
// stage-1 tiles from 512 tokens, measured 461 us at 512 tokens against 289 under 32-row blocks: the
// second tile of a block is mostly padding and streams every weight all the same.)
// Register-fed FP8 products where weights stream; 8 chunks in flight (tile_k 1024, ~165 registers)
// only on 16-row tiles, whose few workgroups at 1-8 tokens leave an SM's registers unused. Their
// fused MXFP8 epilogue (_fp8) pays only beside a stage 2 that reads MXFP8 rows (_mxr); neither is in
// the space until measured on the H200 with the sweep charging the pass between the stages
// (docs/kernel-design.md, "MXFP8 rows"; docs/sweep.md, "What runs between the stages").
bool register_fed_wgmma_in_regime(const KernelConfig& c) {
    return !register_fed_wgmma(c) || (streams_weights(sort_block_m(c)) && c.nontemporal_weights &&
                                      (c.tile_k <= 512 || c.tile_m == 16) && !c.fused_mxfp8_out);
}

// Every FP8 shared-operand warpgroup tile of 128 and 256 rows also as its warp-specialised twin
// (_ws, mx_ws_warps warps), and the 128-wide ones also 192 wide (which only the warp-specialised
// loop builds: its consumers hold two row blocks of 96 accumulators): the tiles of the
// compute-bound buckets (1024 tokens and more), where the 128 x 192 ones won 1-3 % in stage 1 and
// the others lost to their plain twins (docs/kernel-design.md, "The epilogue's cost...").
// The 128-wide tiles of 64 and 128 rows also 256 wide (consumer warpgroups of one m64n256 block),
// whose products read the fewest shared-memory bytes a FLOP (moe_fp8_ws_gemm.h).
// The 128 x 256 ones (with and without _f4w) also copy the weights of an expert's only row tile
// evict-first (_ro): at 1024-2048 tokens most experts' rows fit one such tile, and that took 1-3 %
// off stage 1 and 7-8 % off stage 2 (atomic) on the rebased copy and 1-3 % off the _f4w stage 2 on
// the H100; at 4096-8192 tokens it lost up to 3 % (docs/kernel-design.md, "L2 between the tiles of a
// walk"). The sweep keeps whichever twin wins.
// Each twin follows its plain config, so the space keeps its order (FP8 path first).
void add_warp_specialised_twins(std::vector<KernelConfig>& space) {
    std::vector<KernelConfig> out;
    out.reserve(space.size());
    for (const KernelConfig& c : space) {
        out.push_back(c);
        if (c.mma != MmaPath::fp8 || !c.shared_operands || !c.wgmma) continue;
        KernelConfig twin = c;
        twin.warp_specialised = true;
        auto add = [&](int tile_n) {
            twin.tile_n = tile_n;
            twin.warps = mx_ws_warps(c.tile_m, tile_n);
            if (config_error(twin) || !warp_grid(twin)) return;
            auto push = [&](KernelConfig k) {  // k, and at 128 x 256 its read-once twin after it
                out.push_back(k);
                if (k.tile_m != 128 || k.tile_n != kMxWsWideN) return;
                k.weights_read_once = true;
                out.push_back(k);
            };
            push(twin);
            // The 256-wide tiles (the chosen ones from 1024 tokens) also read FP4 weights and rebase
            // them themselves (_f4w): half the weight bytes where those stages are DRAM-bound.
            KernelConfig fp4 = twin;
            fp4.fp4_weights = true;
            if (tile_n == kMxWsWideN && !config_error(fp4)) push(fp4);
        };
        if (c.tile_m >= 128) add(c.tile_n);
        if (c.tile_n == 128) {
            if (c.tile_m >= 128) add(192);
            add(kMxWsWideN);  // 64 and 128 rows (config_error)
        }
    }
    space = std::move(out);
}

// Every register-fed FP8 tile of 16 rows also as its eight-row twin (_r8: products over the tile's
// first 8 rows, for at most 8 tokens; static_prune_reason drops it above), right after it.
void add_eight_row_twins(std::vector<KernelConfig>& space) {
    std::vector<KernelConfig> out;
    out.reserve(space.size());
    for (const KernelConfig& c : space) {
        out.push_back(c);
        if (!register_fed_wgmma(c) || c.tile_m != 16) continue;
        KernelConfig twin = c;
        twin.eight_rows = true;
        out.push_back(twin);
    }
    space = std::move(out);
}

}  // namespace

// The space, for the H200 and the shapes of the reference tables, sized so that a whole shape
// file compiles in CI in a few minutes on 2 cores (docs/kernel-names.md, "Search space"):
//  - tile_m: every sort block 16..256 (few tokens: 16 for little padding; thousands: 128-256 to
//    reuse each weight tile over more rows; 256 only as _wgmma warpgroups);
//  - tile_n 64/128/256: narrow tiles give enough workgroups on 132 SMs when only ~5 experts are
//    active (stage 1 at 1 token with tile_n 64: 5 x 4608/64 = 360), wide ones amortise the
//    activation loads;
//  - tile_k 128/256/512: 1, 2 or 4 K chunks in flight per warp; 1024 (8) on register-fed FP8
//    products of 16 rows;
//  - warps 2/4/8 (stage 2: 4/8), 16 for 256-row _wgmma tiles; the warp grid (resource_model.h)
//    follows from tile and warps;
//  - an occupancy bound of 4 workgroups (_occ4) on 4-warp register-fed kernels where weights
//    stream;
//  - K-groups (_kw) 1/2/4 of those warps where weights stream: at one token stage 1 has 360
//    workgroups of 64 W1 rows, ~2.7 per SM, and their warps alone cannot keep enough loads in
//    flight (the weight stream ran at 0.5-1 TB/s without them);
//  - non-temporal weight loads on/off;
//  - shared operands (_smem) on/off: on the bf16 path at tile_k 128, sort blocks of 32 and more;
//    with them Hopper warpgroup products (_wgmma) on/off (64-256-row tiles, and swapped 32-row
//    ones whose warpgroups hold the weights' rows; sm_90a); without them on the FP8 path, stage 2,
//    16- and 32-row tiles where weights stream: register-fed warpgroup products;
//  - stage 1: fused MXFP8 output on/off (off = bf16 out plus a separate quantisation, as AITER
//    times it); stage 2: atomic or reduce, tile_m = the sort block or half of it (_sbm, as
//    AITER's tuner);
//  - the warp-specialised twin (_ws) of each FP8 shared-operand warpgroup tile of 128-256 rows, and
//    of the 128-wide ones a 192-wide one (128 and 256 rows) and a 256-wide one (64 and 128 rows);
//  - the eight-row twin (_r8) of each register-fed FP8 tile of 16 rows (at most 8 tokens);
//  - the MMA paths asked for (EnumerationOptions::mma_paths), outermost: the FP8 path's configs
//    first, then the same configs on the bf16 path;
// then trimmed by the rules above. Configs the templates cannot build (config_error, no warp
// grid) are not part of it. Split-K across workgroups is left out: it would break the fused
// SiLU/quant epilogue into an fp32 partial round trip; K-groups split K inside the workgroup.
std::vector<KernelConfig> search_space(Stage stage, const std::vector<MmaPath>& mma_paths) {
    std::vector<KernelConfig> space;
    for (MmaPath path : mma_paths) {
        KernelConfig base;
        base.stage = stage;
        base.mma = path;
        space.push_back(base);
    }
    vary(space, {16, 32, 64, 128, 256}, [](KernelConfig& c, int v) { c.tile_m = v; });
    vary(space, {64, 128, 256}, [](KernelConfig& c, int v) { c.tile_n = v; });
    vary(space, {128, 256, 512, 1024}, [](KernelConfig& c, int v) { c.tile_k = v; });
    if (stage == Stage::gate_up) vary(space, {2, 4, 8, 16}, [](KernelConfig& c, int v) { c.warps = v; });
    else vary(space, {4, 8, 16}, [](KernelConfig& c, int v) { c.warps = v; });
    vary(space, {0, 4}, [](KernelConfig& c, int v) { c.min_workgroups = v; });
    vary(space, {1, 2, 4}, [](KernelConfig& c, int v) { c.k_warps = v; });
    vary(space, {false, true}, [](KernelConfig& c, bool v) { c.nontemporal_weights = v; });
    vary(space, {false, true}, [](KernelConfig& c, bool v) { c.shared_operands = v; });
    vary(space, {false, true}, [](KernelConfig& c, bool v) { c.wgmma = v; });
    if (stage == Stage::gate_up) {
        vary(space, {true, false}, [](KernelConfig& c, bool v) { c.fused_mxfp8_out = v; });
    } else {
        vary(space, {Stage2Mode::atomic, Stage2Mode::reduce}, [](KernelConfig& c, Stage2Mode v) { c.mode = v; });
        vary(space, {false, true}, [](KernelConfig& c, bool half) { c.sort_block = half ? 2 * c.tile_m : 0; });
    }
    std::erase_if(space, [](const KernelConfig& c) {
        return config_error(c) || !warp_grid(c) || !streaming_knobs_in_regime(c) || !plain_if_reduce(c) ||
               !wide_enough_for_warps(c) || !k_groups_in_regime(c) || !occupancy_bound_in_regime(c) ||
               !shared_operands_in_regime(c) || !warpgroup_tiles_only(c) || !register_fed_wgmma_in_regime(c);
    });
    add_warp_specialised_twins(space);
    add_eight_row_twins(space);
    return space;
}

std::optional<std::regex> name_filter(const std::string& pattern) {
    if (pattern.empty()) return std::nullopt;
    return std::regex(pattern, std::regex::ECMAScript);
}

std::optional<std::vector<MmaPath>> mma_paths_from_choice(std::string_view choice) {
    if (choice == "all") return std::vector<MmaPath>{MmaPath::fp8, MmaPath::bf16};
    if (auto path = mma_path_from_token(choice)) return std::vector<MmaPath>{*path};
    return std::nullopt;
}

CandidateList enumerate_candidates(Stage stage, const data::MoeShape& shape, const DeviceLimits& limits,
                                   const EnumerationOptions& options) {
    if (auto err = shape_error(shape)) throw std::invalid_argument(*err);
    CandidateList out;
    for (const KernelConfig& c : search_space(stage, options.mma_paths)) {
        auto reason = static_prune_reason(c, shape, limits);
        if (!reason && options.heuristics) reason = block_m_heuristic_reason(sort_block_m(c), shape);
        if (!reason && options.heuristics) reason = k_groups_heuristic_reason(c, shape, limits);
        if (!reason && options.names && !std::regex_search(kernel_name(c), *options.names))
            reason = std::string(kNotMatchingKernels);
        if (reason) out.pruned.push_back({c, std::move(*reason)});
        else out.kept.push_back(c);
    }
    return out;
}

std::string empty_list_reason(Stage stage, const CandidateList& list, std::string_view arch) {
    const auto filtered = std::count_if(list.pruned.begin(), list.pruned.end(),
                                        [](const PrunedConfig& p) { return p.reason == kNotMatchingKernels; });
    const std::string stage_n = "stage-" + std::to_string(stage_number(stage));
    if (filtered > 0)
        return "--kernels matches none of the " + std::to_string(filtered) + " " + stage_n +
               " kernels that fit this shape on " + std::string(arch);
    return "no " + stage_n + " kernel fits this shape on " + std::string(arch);
}

}  // namespace moetune::kernels
