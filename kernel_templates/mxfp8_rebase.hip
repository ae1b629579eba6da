// MXFP8 values and scales -> rebased rows (common/mx_rebase.h): per row its largest block scale as
// the base, each element e4m3 of value * 2^(scale - base). One warp per row: the scales' maximum
// over the warp, then each lane rebases 16-byte units of the row.
#include "common/memory.h"
#include "common/mx_rebase.h"
#include "common/mx_rebase_base.h"

template <int THREADS>
__global__ void __launch_bounds__(THREADS)
    mxfp8_rebase(const unsigned char* __restrict__ values, const unsigned char* __restrict__ scales, int rows, int cols,
                 unsigned char* __restrict__ rebased, unsigned char* __restrict__ bases) {
    const int lane = int(threadIdx.x) & 31;
    const int warps = int(gridDim.x) * (THREADS / 32);
    const int blocks = cols / 32, units = cols / 16;
    for (int row = int(blockIdx.x) * (THREADS / 32) + int(threadIdx.x) / 32; row < rows; row += warps) {
        const unsigned char* s = scales + (long long)row * blocks;
        const unsigned top = mx_rebase_base(s, blocks, lane);
        const mx_u32x4* in = reinterpret_cast<const mx_u32x4*>(values + (long long)row * cols);
        mx_u32x4* out = reinterpret_cast<mx_u32x4*>(rebased + (long long)row * cols);
        for (int u = lane; u < units; u += 32) {
            const int k = int(top) - int(s[u / 2]);
            mx_u32x4 v = in[u];
            moetune_u32* words = reinterpret_cast<moetune_u32*>(&v);
            for (int w = 0; w < 4; ++w) {
                moetune_u32 r = 0;
                for (int i = 0; i < 4; ++i)
                    r |= moetune_u32(mx_e4m3_rebase((unsigned char)(words[w] >> (8 * i)), k)) << (8 * i);
                words[w] = r;
            }
            out[u] = v;
        }
        if (lane == 0) bases[row] = (unsigned char)top;
    }
}
