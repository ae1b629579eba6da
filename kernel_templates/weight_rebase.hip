// Expert weights from the kernel layout (formats::WeightLayout::mma_k128: coded FP4 fragments,
// row-major e8m0 scales) into rebased rows (common/mx_rebase.h), what the FP8 warpgroup-product
// kernels read. The rows of all experts are consecutive ([rows, K] with rows = experts * N), in the
// kernel layout's row order, in the blocks of common/rebased_weight_layout.h. Two passes: each
// row's base, then the values.
#include "common/fp4_weight_blocks.h"
#include "common/mx_e2m1_e4m3_lut.h"
#include "common/mx_rebase.h"
#include "common/mx_rebase_base.h"
#include "common/rebased_weight_layout.h"

// bases[r] = the largest of row r's K/32 scale bytes. One warp per row.
template <int THREADS>
__global__ void __launch_bounds__(THREADS)
    weight_rebase_bases(const unsigned char* __restrict__ scales, long long rows, int k32_count,
                        unsigned char* __restrict__ bases) {
    const int lane = int(threadIdx.x) & 31;
    const long long warps = (long long)gridDim.x * (THREADS / 32);
    for (long long r = (long long)blockIdx.x * (THREADS / 32) + threadIdx.x / 32; r < rows; r += warps) {
        const unsigned top = mx_rebase_base(scales + r * k32_count, k32_count, lane);
        if (lane == 0) bases[r] = (unsigned char)top;
    }
}

// One thread per 16-byte fragment vector of the mma_k128 layout: vector ((n8 * k128_count + k128) *
// 32 + lane) holds, for row n8 * 8 + lane / 4 and t = lane % 4, the coded words of the chunk's four
// blocks kb at K 128 k128 + 32 kb + 8t .. + 7.
template <int THREADS>
__global__ void __launch_bounds__(THREADS)
    weight_rebase_values(const unsigned char* __restrict__ coded, const unsigned char* __restrict__ scales,
                         const unsigned char* __restrict__ bases, long long rows, int K,
                         unsigned char* __restrict__ rebased) {
    const int k128_count = K / 128, k32_count = K / 32;
    const long long vectors = rows * k128_count * 4;
    const long long stride = (long long)gridDim.x * THREADS;
    for (long long v = (long long)blockIdx.x * THREADS + threadIdx.x; v < vectors; v += stride) {
        const int lane = int(v % 32), t = lane % 4;
        const long long n8_k128 = v / 32;
        const int k128 = int(n8_k128 % k128_count);
        const long long row = n8_k128 / k128_count * 8 + lane / 4;
        const moetune_u32* words = reinterpret_cast<const moetune_u32*>(coded + v * 16);
        for (int kb = 0; kb < 4; ++kb) {
            const int k0 = 128 * k128 + 32 * kb + 8 * t;
            const unsigned scale = scales[row * k32_count + k0 / 32];
            unsigned char* out = rebased + mx_rebased_weight_offset(rows, K, row, k0);  // 8 bytes in one unit
            for (int j = 0; j < 8; ++j) out[j] = mx_e2m1_rebase(mx_e2m1_coded_element(words[kb], j), scale, bases[row]);
        }
    }
}

// The same weights as FP4 blocks (common/fp4_weight_blocks.h), which the warp-specialised FP8 loop
// rebases itself (FP4_WEIGHTS): one thread per 16-byte fragment vector as above, each of its four
// words' 8 codes stored as 4 bytes in element order with their signs split (mx_e2m1x8_split_signs),
// and the lane of t = 0 storing the table row
// of each of the vector's four MX blocks (mx_e2m1_e4m3_shift_row against `bases`, which
// weight_rebase_bases writes). Byte for byte formats::fp4_weight_blocks.
template <int THREADS>
__global__ void __launch_bounds__(THREADS)
    weight_fp4_blocks(const unsigned char* __restrict__ coded, const unsigned char* __restrict__ scales,
                      const unsigned char* __restrict__ bases, long long rows, int K, unsigned char* __restrict__ blocks) {
    const int k128_count = K / 128, k32_count = K / 32;
    const long long vectors = rows * k128_count * 4;
    const long long stride = (long long)gridDim.x * THREADS;
    for (long long v = (long long)blockIdx.x * THREADS + threadIdx.x; v < vectors; v += stride) {
        const int lane = int(v % 32), t = lane % 4;
        const long long n8_k128 = v / 32;
        const int k128 = int(n8_k128 % k128_count);
        const long long row = n8_k128 / k128_count * 8 + lane / 4;
        const moetune_u32* words = reinterpret_cast<const moetune_u32*>(coded + v * 16);
        for (int kb = 0; kb < 4; ++kb) {
            const int k0 = 128 * k128 + 32 * kb + 8 * t;
            moetune_u32 plain = 0;
            for (int j = 0; j < 8; ++j) plain |= moetune_u32(mx_e2m1_coded_element(words[kb], j)) << (4 * j);
            *reinterpret_cast<moetune_u32*>(blocks + mx_fp4_code_offset(K, row, k0)) = mx_e2m1x8_split_signs(plain);
            if (t == 0)
                blocks[mx_fp4_table_row_offset(K, row, k0)] =
                    (unsigned char)mx_e2m1_e4m3_shift_row(scales[row * k32_count + k0 / 32], bases[row]);
        }
    }
}
