#pragma once
// The sums of products of rebased rows (mx_rebase.h) are the accumulators times 2^(row base - 127)
// * 2^(column base - 127), applied once a tile's products are done (both FP8 warpgroup loops:
// moe_fp8_wgmma_gemm.h, moe_fp8_ws_gemm.h).
#include "mx_types.h"

// One warp's 16 rows of an m64nN warpgroup product: lane (g, t) holds rows g and g + 8 (h) of
// columns 8j + 2t + c in acc[j][2h + c]. row_base: the bases of the warp's 16 rows; column_base:
// those of the product's N columns.
// The factor 2^(row - 127) * 2^(column - 127) is a product of two e8m0 values (exact wherever
// ldexpf(1, row + column - 254) is a float; ldexpf itself was ~10 instructions an element).
template <int NJ>
__device__ inline void mx_apply_rebase_bases(float (&acc)[NJ][4], const unsigned char* row_base,
                                             const unsigned char* column_base) {
    const int lane = int(threadIdx.x) & 31;
    const int g = lane >> 2, t = lane & 3;
    const float row_scale[2] = {mx_e8m0_to_float(row_base[g]), mx_e8m0_to_float(row_base[g + 8])};
#pragma unroll
    for (int j = 0; j < NJ; ++j)
#pragma unroll
        for (int c = 0; c < 2; ++c) {
            const float column_scale = mx_e8m0_to_float(column_base[8 * j + 2 * t + c]);
#pragma unroll
            for (int h = 0; h < 2; ++h) acc[j][2 * h + c] *= row_scale[h] * column_scale;
        }
}
