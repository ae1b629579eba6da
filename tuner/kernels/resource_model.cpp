#include "kernels/resource_model.h"

#include <stdexcept>

namespace moetune::kernels {
namespace {

constexpr int kMmaM = 16;  // rows of one tensor-core tile
constexpr int kMmaN = 8;   // columns of one tensor-core tile

// Register cost per unit: a least-squares fit to ptxas -v for sm_90a (CUDA 13.0) over warp blocks
// 16..128 x 8..128 at tile_k 128/256/512 of both templates, rounded. It estimates <= 252 for every
// kernel ptxas fit under 255 registers without spilling and >= 268 for every one that spilled more
// than 8 bytes, and is within 30 registers of NVRTC's count for every kernel of the DSv4.1 plan.
// What slips through (a few bytes of spill at 96 or 168 registers) is pruned after compiling
// (instantiate/resource_usage.h).
constexpr int kFixed = 12;          // thread and row bases, loop counters
constexpr int kPerRowTile = 8;      // per 16 rows: activation row indices, scale words, A fragment
constexpr int kPerColumnTile = 16;  // per 8 weight rows: scale words and floats, widened B, addresses
constexpr int kPerMmaTile = 8;      // per 16x8 tile: 4 fp32 accumulators + the 4-float partial product
constexpr int kPerPrefetchedChunk = 4;  // per 8 weight rows and 128-wide K chunk: one 16-byte vector

}  // namespace

std::optional<WarpGrid> warp_grid(const KernelConfig& c) {
    std::optional<WarpGrid> best;
    int best_extent = 0;
    // warps_m from high to low, so on a tie the later (more warps along N) grid wins.
    for (int warps_m = c.warps; warps_m >= 1; warps_m /= 2) {
        const int warps_n = c.warps / warps_m;
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

// Shared memory: only the tile's routing tables (stage 1: token and slot of each row; stage 2
// also the stage-1 output row and the routing weight), 4 bytes each.
// Registers per thread, for the warp block's MT = warp_m/16 row tiles, NJ = warp_n/8 column tiles
// and PIPE = tile_k/128 prefetched chunks:
//   12 + 8*MT + 16*NJ + 8*MT*NJ + 4*PIPE*NJ
ResourceEstimate estimate_resources(const KernelConfig& c) {
    const auto grid = warp_grid(c);
    if (!grid) throw std::invalid_argument("estimate_resources: the warps cannot split this tile");
    const int row_tables = c.stage == Stage::gate_up ? 2 : 4;
    const int mt = c.tile_m / grid->warps_m / kMmaM;
    const int nj = c.tile_n / grid->warps_n / kMmaN;
    const int pipe = c.tile_k / kKChunk;
    return ResourceEstimate{
        row_tables * 4 * c.tile_m,
        kFixed + kPerRowTile * mt + kPerColumnTile * nj + kPerMmaTile * mt * nj + kPerPrefetchedChunk * pipe * nj,
    };
}

}  // namespace moetune::kernels
