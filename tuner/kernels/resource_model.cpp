#include "kernels/resource_model.h"

#include <algorithm>
#include <stdexcept>

#include "common/mx_f16_code.h"
#include "common/shared_operand_layout.h"

namespace moetune::kernels {
namespace {

constexpr int kMmaM = 16;  // rows of one tensor-core tile
constexpr int kMmaN = 8;   // columns of one tensor-core tile

// Registers per thread = fixed + per_row_tile * MT + per_column_tile * NJ + per_mma_tile * MT * NJ
// + per_prefetched_chunk * PIPE * NJ, for the warp block's MT = warp_m/16 row tiles, NJ = warp_n/8
// column tiles and PIPE = tile_k/128 prefetched chunks. The costs are least-squares fits to ptxas -v
// for sm_90a (CUDA 13.0), rounded, one per MMA path.
struct RegisterCost {
    int fixed;                 // thread and row bases, loop counters
    int per_row_tile;          // per 16 rows: activation row indices, scale words, A fragment
    int per_column_tile;       // per 8 weight rows: scale words, widened B, addresses
    int per_mma_tile;          // per 16x8 tile: 4 fp32 accumulators (+ the FP8 path's partial product)
    int per_prefetched_chunk;  // per 8 weight rows and 128-wide K chunk: one 16-byte vector
};

// FP8: over warp blocks 16..128 x 8..128 at tile_k 128/256/512 of both templates. It estimates
// <= 252 for every kernel ptxas fit under 255 registers without spilling and >= 268 for every one
// that spilled more than 8 bytes, and is within 30 registers of NVRTC's count for every kernel of
// the DSv4.1 plan. What slips through (a few bytes of spill at 96 or 168 registers) is pruned after
// compiling (instantiate/resource_usage.h).
constexpr RegisterCost kFp8Cost = {12, 8, 16, 8, 4};
// bf16: the A fragment is twice the FP8 one (8 registers of bf16 pairs per 16 rows) and so is B (4
// per 8 rows), but the scales are folded into the operands, so there are no float scales per column
// and no partial product per MMA tile. Fit over 179 kernels of the bf16 search space (each
// combination of stage, warp block, tile_k, warps, fused output and stage-2 mode): within 33
// registers of ptxas; every kernel that fit estimates <= 254 and every one that spilled estimates
// >= 290, except 16x64 blocks at tile_k 512 (estimate 254): 254 registers, but 8-20 bytes of spill
// with the fused stage-1 or the stage-2 atomic epilogue, pruned after compiling.
constexpr RegisterCost kBf16Cost = {10, 12, 9, 4, 4};

// _smem: fixed + per_mma_tile * MT * NJ + per_staged_vector * (16-byte vectors a thread stages per
// chunk: 8 per activation row and 4 per weight row of the tile, over the workgroup's threads).
// ptxas keeps the next block's fragments in flight, hence ~12 per MMA tile. Fit to ptxas -v
// (sm_90a, CUDA 13.0) over both stages at 64/128 x 128/256 tiles with 4 and 8 warps: within 10
// registers of every kernel that fit; the ones that spilled estimate >= 252.
struct SharedOperandsCost {
    int fixed;
    int per_mma_tile;
    int per_staged_vector;
};
constexpr SharedOperandsCost kSharedOperandsCost = {20, 12, 5};

// _wgmma (warp blocks 16 x tile_n / warps_n, so 4 * MT * NJ = tile_n / 2 / warps_n accumulators):
// the activations are copied (cp.async), so the staged vectors are the weight vectors only, ~32
// registers each where the loop takes two chunks a pass (two register sets in flight and their
// widening), half that where it takes one (one vector a thread, or 512 threads:
// mx_wgmma_chunks_per_pass). Fit to ptxas -v (sm_90a, CUDA 13.0) over both stages: 64 x 64: 128
// registers, 64 x 128: 245, 128 x 64: 96, 128 x 128: 170-178, 256 x 64: 102, 256 x 128: 128 (16
// warps), and with two warpgroups side by side 64 x 256: 230, 128 x 256: 128 (16 warps; 4 bytes of
// spill with the fused stage-1 epilogue): exact or up to 31 low, which keeps every kernel that fit;
// wider tiles estimate above the share of their threads and are pruned (ptxas: 400 bytes of spill
// at 64 x 256 with 4 warps, 256 x 256 does not compile within 128 registers; 128 x 256 with 8 warps
// fits 255 but estimates 288). Swapped 32-row tiles (warp blocks 32 x 16, two weight vectors a
// thread): 96-114 at 32 x 64, 93 at 32 x 128, 78 at 32 x 256 (16 warps, one chunk a pass); estimated
// 112, 112, 80.
constexpr SharedOperandsCost kWgmmaCost = {32, 4, 32};

}  // namespace

std::optional<WarpGrid> warp_grid(const KernelConfig& c) {
    // _gemv: the warps split K, not the tile (the templates ignore the grid).
    if (c.gemv) return WarpGrid{1, 1};
    // wgmma: warpgroups of four 16-row warps cover the rows, over the tile's whole width or, with
    // twice those warps, over either half of a 256-wide tile (moe_shared_gemm.h; kWgmmaSideBySideN).
    // Swapped: one warp per 16 weight rows, each over all of the tile's rows.
    if (swapped_wgmma(c)) {
        if (c.warps * 16 != c.tile_n) return std::nullopt;
        return WarpGrid{1, c.warps};
    }
    // Warp-specialised: the epilogue takes the consumers' row blocks 16 rows a warp at a time, each
    // over the whole width or, side by side (64 x 256), over its warpgroup's half (the producers hold
    // no rows).
    if (c.warp_specialised) return WarpGrid{c.tile_m / kMmaM, mx_ws_side_by_side(c.tile_m, c.tile_n) ? 2 : 1};
    if (c.wgmma) {
        const int warps_m = c.tile_m / kMmaM;
        if (warps_m % 4 != 0 || c.warps % warps_m != 0) return std::nullopt;
        const int warps_n = c.warps / warps_m;
        if (warps_n > 2 || (warps_n == 2 && c.tile_n != kWgmmaSideBySideN) || c.tile_n % warp_n_granule(c) != 0)
            return std::nullopt;
        return WarpGrid{warps_m, warps_n};
    }
    std::optional<WarpGrid> best;
    int best_extent = 0;
    // One K-group's warps cover the tile. warps_m from high to low, so on a tie the later (more
    // warps along N) grid wins.
    const int group = c.warps / c.k_warps;
    for (int warps_m = group; warps_m >= 1; warps_m /= 2) {
        const int warps_n = group / warps_m;
        if (c.tile_m % warps_m != 0 || c.tile_n % warps_n != 0) continue;
        const int warp_m = c.tile_m / warps_m;
        const int warp_n = c.tile_n / warps_n;
        if (warp_m % kWarpMGranule != 0 || warp_n % warp_n_granule(c) != 0) continue;
        if (!best || warp_m + warp_n <= best_extent) {
            best = WarpGrid{warps_m, warps_n};
            best_extent = warp_m + warp_n;
        }
    }
    return best;
}

// Shared memory: the tile's routing tables (stage 1: token and slot of each row; stage 2 also the
// stage-1 output row and the routing weight), 4 bytes each, and with K-groups one fp32 tile
// through which they sum (moe_gemm.h, mx_sum_k_groups), or with _smem the operand buffers.
// Registers per thread: the path's RegisterCost (FP8 12 + 8*MT + 16*NJ + 8*MT*NJ + 4*PIPE*NJ, bf16
// 10 + 12*MT + 9*NJ + 4*MT*NJ + 4*PIPE*NJ), or _smem's.
ResourceEstimate estimate_resources(const KernelConfig& c) {
    const auto grid = warp_grid(c);
    if (!grid) throw std::invalid_argument("estimate_resources: the warps cannot split this tile");
    const int row_tables = c.stage == Stage::gate_up ? 2 : 4;
    const int mt = c.tile_m / grid->warps_m / kMmaM;
    const int nj = c.tile_n / grid->warps_n / kMmaN;
    const int pipe = c.tile_k / kKChunk;
    const RegisterCost& r = c.mma == MmaPath::bf16 ? kBf16Cost : kFp8Cost;
    const int k_group_sum = c.k_warps > 1 ? 4 * c.tile_m * c.tile_n : 0;
    if (c.gemv) {
        // The rows' tables and weights, the shares' sums ([warps][8][16] floats). Registers: ptxas (NVRTC
        // sm_90a, session 64) gave 74-87 whatever the pairs in flight and the ring (the compiler moves the
        // register ring's loads toward their use), for a lane's 4 sums, 8 scale factors a pair and the
        // rows' operands: 80.
        return ResourceEstimate{16 * 12 + c.warps * kMxF16GemvColumns * 16 * 4 + dynamic_shared_bytes(c), 80};
    }
    if (c.warp_specialised) {
        // A consumer thread's accumulators (its columns / 2 a row block, one or two row blocks) and ~40 for
        // addresses and the epilogue, at most the even share of the SM's registers, which is what the
        // launch takes (with two consumer warpgroups the producers give theirs to the consumers,
        // moe_fp8_ws_gemm.h); ptxas (nvcc sm_90a): 64 x 64 64 registers, 64 x 128 95-100, 128 x 64
        // 100-128, 128 x 128 166-246 (stage 2's atomic epilogue), 128 x 192 226, 256 x 64-192 168;
        // NVRTC sm_90a: 64 x 256 168 (side by side; one warpgroup 157-184), 128 x 256 168.
        const int row_blocks = mx_ws_consumer_row_blocks(c.tile_m, c.tile_n);
        const int even_share = mx_launch_registers(32 * c.warps);
        const bool rebalanced = mx_ws_rebalances(c.tile_m, c.tile_n);  // compiled to the share
        const int consumer = 40 + row_blocks * mx_ws_consumer_columns(c.tile_m, c.tile_n) / 2;
        return ResourceEstimate{row_tables * 4 * c.tile_m * 2 + dynamic_shared_bytes(c),
                                rebalanced ? even_share : std::min(consumer, even_share)};
    }
    if (register_fed_wgmma(c)) {
        // The sums and two partial-sum sets (tile_m / 2 each), two A sets (8), 10 a chunk in flight
        // (two weight vectors and two scale words), ~40 for addresses and the epilogue. ptxas (NVRTC
        // sm_90a): 16 rows 79-100 at 2 chunks ahead, 118-130 at 4, 164-166 at 8 (estimated 92, 112,
        // 152); 32 rows 128-164 and 161-168 (116, 136; the 16-warp tiles fit 128, which the estimate
        // must allow). _r8: partial sums of 8 rows (product_rows).
        const int product_rows = c.eight_rows ? 8 : c.tile_m;
        return ResourceEstimate{row_tables * 4 * c.tile_m + dynamic_shared_bytes(c),
                                40 + c.tile_m / 2 + product_rows + 8 + 10 * pipe};
    }
    if (c.shared_operands) {
        const int threads = 32 * c.warps;
        const int staged_acts = c.wgmma ? 0 : (8 * c.tile_m + threads - 1) / threads;
        const int staged = staged_acts + (4 * c.tile_n + threads - 1) / threads;
        const SharedOperandsCost& s = c.wgmma ? kWgmmaCost : kSharedOperandsCost;
        const bool one_chunk_a_pass = c.wgmma && mx_wgmma_chunks_per_pass(staged, threads) == 1;
        const int per_staged_vector = one_chunk_a_pass ? s.per_staged_vector / 2 : s.per_staged_vector;
        return ResourceEstimate{row_tables * 4 * c.tile_m + dynamic_shared_bytes(c),
                                s.fixed + s.per_mma_tile * mt * nj + per_staged_vector * staged};
    }
    return ResourceEstimate{
        row_tables * 4 * c.tile_m + k_group_sum,
        r.fixed + r.per_row_tile * mt + r.per_column_tile * nj + r.per_mma_tile * mt * nj +
            r.per_prefetched_chunk * pipe * nj,
    };
}

int dynamic_shared_bytes(const KernelConfig& c) {
    // _gemv with _smem: each warp's ring of tile_k / 64 slots (a pair's values and its lanes' scale words).
    if (c.gemv) return c.shared_operands ? c.warps * (c.tile_k / 64) * kMxF16GemvSlotBytes : 0;
    // Register-fed FP8 warpgroup products: two windows of 8 chunks of the tile's rows, 128 bytes each,
    // and 1024 to align them (MxMoeFp8RegisterGemm::kSharedBytes).
    if (register_fed_wgmma(c)) return 2 * 8 * c.tile_m * 128 + 1024;
    if (!c.shared_operands) return 0;
    // Warp-specialised: the template's own rule (its chunk buffers, with FP4 weights the ring of
    // rebased weights, and 1024 bytes to align them).
    if (c.warp_specialised) return mx_ws_shared_bytes(c.tile_m, c.tile_n, c.fp4_weights);
    // The template's own rule for the buffers (MxMoeSharedGemm::kSharedBytes); wgmma: 1024 more to
    // align them to the swizzle's 1024-byte period.
    const int buffer = kMxSharedRowBytes * (c.tile_m + c.tile_n);
    const int align = c.wgmma ? 1024 : 0;
    return mx_shared_operand_buffers(c.wgmma, c.tile_m, c.tile_n) * buffer + align;
}

}  // namespace moetune::kernels
