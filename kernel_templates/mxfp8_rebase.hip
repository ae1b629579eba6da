// MXFP8 values and scales -> rebased rows (common/mx_rebase.h): per row its largest block scale as
// the base, each element e4m3 of value * 2^(scale - base). One warp per row: the scales' maximum
// over the warp, then each lane rebases 16-byte units of the row -- with INTERLEAVE (the
// register-fed FP8 kernels, moe_fp8_register_gemm.h) a 32-byte block's two units, whose words it
// stores in the order of mx_interleaved_source_word, that of those kernels' fragments, so that they
// copy the rows as they are. (A compile-time choice: the word order then indexes registers.)
#include "common/memory.h"
#include "common/mx_rebase.h"
#include "common/mx_rebase_base.h"

template <int THREADS, bool INTERLEAVE>
__global__ void __launch_bounds__(THREADS)
    mxfp8_rebase(const unsigned char* __restrict__ values, const unsigned char* __restrict__ scales, int rows, int cols,
                 unsigned char* __restrict__ rebased, unsigned char* __restrict__ bases) {
    constexpr int kUnits = INTERLEAVE ? 2 : 1;  // 16-byte units a lane takes at a time
    const int lane = int(threadIdx.x) & 31;
    const int warps = int(gridDim.x) * (THREADS / 32);
    const int blocks = cols / 32, pieces = cols / (16 * kUnits);
    for (int row = int(blockIdx.x) * (THREADS / 32) + int(threadIdx.x) / 32; row < rows; row += warps) {
        const unsigned char* s = scales + (long long)row * blocks;
        const unsigned top = mx_rebase_base(s, blocks, lane);
        const mx_u32x4* in = reinterpret_cast<const mx_u32x4*>(values + (long long)row * cols);
        mx_u32x4* out = reinterpret_cast<mx_u32x4*>(rebased + (long long)row * cols);
        for (int piece = lane; piece < pieces; piece += 32) {
            const int k = int(top) - int(s[piece * kUnits / 2]);
            moetune_u32 r[4 * kUnits];
#pragma unroll
            for (int u = 0; u < kUnits; ++u) {
                const mx_u32x4 v = in[piece * kUnits + u];
                const moetune_u32 words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
                for (int w = 0; w < 4; ++w) r[4 * u + w] = mx_e4m3_rebase_word(words[w], k);
            }
#pragma unroll
            for (int u = 0; u < kUnits; ++u) {
                int from[4];
#pragma unroll
                for (int w = 0; w < 4; ++w) from[w] = INTERLEAVE ? mx_interleaved_source_word(4 * u + w) : 4 * u + w;
                out[piece * kUnits + u] = mx_u32x4{r[from[0]], r[from[1]], r[from[2]], r[from[3]]};
            }
        }
        if (lane == 0) bases[row] = (unsigned char)top;
    }
}
