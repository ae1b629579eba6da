#include "kernels/resource_model.h"

#include <stdexcept>

namespace moetune::kernels {
namespace {

constexpr int kMmaM = 16;

int ceil_div(int a, int b) { return (a + b - 1) / b; }

// Bytes of a rows x cols tile of `t` plus, for MX types, its e8m0 scales (one byte per 32 along K).
int mx_tile_bytes(int rows, int cols, DType t) {
    const int values = rows * cols * dtype_bits(t) / 8;
    const int scales = t == DType::bf16 ? 0 : rows * cols / kMxBlock;
    return values + scales;
}

}  // namespace

int min_warp_tile_n(Stage s) { return s == Stage::gate_up ? 32 : 16; }

std::optional<WarpGrid> warp_grid(const KernelConfig& c) {
    std::optional<WarpGrid> best;
    int best_fragment = 0;
    for (int wm = 1; wm <= c.warps; wm *= 2) {
        const int wn = c.warps / wm;
        if (c.tile_m / wm < kMmaM || c.tile_n / wn < min_warp_tile_n(c.stage)) continue;
        const int fragment = c.tile_m / wm + c.tile_n / wn;
        if (!best || fragment < best_fragment) {
            best = WarpGrid{wm, wn};
            best_fragment = fragment;
        }
    }
    return best;
}

// Shared memory = pipeline_stages x (A tile + B tile, each with its e8m0 scales)
//                 + epilogue staging of the output tile + the tile's routing entries.
//   A: tile_m x tile_k activations (fp8: 1 byte), B: tile_n x tile_k weights (fp4: 1/2 byte).
//   Epilogue: stage 1 stages tile_m x tile_n/2 outputs (bf16, or fp8 + one scale per 32);
//             stage 2 stages tile_m x tile_n bf16 before the atomic add / row store.
//   Routing: sorted token ids (4 B per row), stage 2 also the routing weights (4 B).
// Registers per thread = fp32 accumulators (tile_m x tile_n spread over all threads)
//   + operand fragments of one 32-wide K step for the warp's block, double-buffered
//     (warp_m rows of A + warp_n rows of B widened to 8 bit, spread over the warp's lanes)
//   + a fixed 40 for addresses, loop state, scales and routing.
// Assumes the e8m0 scales are folded into the operands while widening (no second accumulator set).
ResourceEstimate estimate_resources(const KernelConfig& c, int warp_size) {
    const auto grid = warp_grid(c);
    if (!grid) throw std::invalid_argument("estimate_resources: the warps cannot split this tile");
    const bool stage1 = c.stage == Stage::gate_up;

    const int a_tile = mx_tile_bytes(c.tile_m, c.tile_k, c.act);
    const int b_tile = mx_tile_bytes(c.tile_n, c.tile_k, c.weight);
    int epilogue = 0;
    if (stage1) {
        const int out_cols = c.tile_n / 2;
        epilogue = c.fused_mxfp8_out ? mx_tile_bytes(c.tile_m, out_cols, DType::fp8_e4m3)
                                     : c.tile_m * out_cols * dtype_bits(c.out) / 8;
    } else {
        epilogue = c.tile_m * c.tile_n * dtype_bits(c.out) / 8;
    }
    const int routing = c.tile_m * (stage1 ? 4 : 8);

    const int threads = c.warps * warp_size;
    const int warp_m = c.tile_m / grid->warps_m;
    const int warp_n = c.tile_n / grid->warps_n;
    const int accumulators = ceil_div(c.tile_m * c.tile_n, threads);
    const int fragment_bytes = (warp_m * dtype_bits(c.act) / 8 + warp_n) * kMxBlock;
    const int operands = 2 * ceil_div(fragment_bytes, warp_size * 4);
    constexpr int kFixedRegisters = 40;

    return ResourceEstimate{c.pipeline_stages * (a_tile + b_tile) + epilogue + routing,
                            accumulators + operands + kFixedRegisters};
}

}  // namespace moetune::kernels
