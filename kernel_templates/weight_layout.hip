// Expert weights from the logical layout into formats::WeightLayout::mma_k128 (what moe_stage1.hip and
// moe_stage2.hip read; common/moe_gemm.h describes it), on the GPU: the same permutation as the host's
// formats::lay_out_values / lay_out_scales(mma_k128, ...) (tests compare the bytes), for weights of
// DSv4.1's size (1.7 GB) that the host would shuffle for seconds. Each thread computes, for one output
// unit, the logical unit it comes from.
//
// The logical tensor is [E, rows, row_bytes]. Output row r of an expert comes from logical row r, or
// with GATE_UP (w1: rows [0, rows/2) gate, [rows/2, rows) up) the rows are interleaved per 16, GUGU:
//   out row blk*32 + gu*16 + j  <-  logical row gu*rows/2 + blk*16 + j.
// FRAGMENTS (the values, not the scales): within each group of 8 output rows and each 64-byte chunk
// of K (128 FP4 values), the 512 bytes are reordered [g 8][kb 4][t 4][4 bytes] -> [g 8][t 4][kb 4][4 bytes]
// (lane (g, t) of a warp then loads its 16-byte tensor-core fragment with one vector load), and the
// groups are stored [n8][k128][512 bytes]. The unit is then a 4-byte word, which the reorder keeps whole
// and stores in the kernels' e2m1 code (common/mx_e2m1_code.h; the host passes the encoder table).
//
// Grid: x strides over one expert's units, y = expert (indices stay 32-bit; the launcher checks that
// an expert fits).

#include "common/mx_e2m1_code.h"

template <bool GATE_UP>
__device__ inline unsigned weight_layout_logical_row(unsigned out_row, unsigned rows) {
    if (!GATE_UP) return out_row;
    const unsigned blk = out_row / 32, gu = (out_row / 16) % 2, j = out_row % 16;
    return gu * (rows / 2) + blk * 16 + j;
}

// Values: 4-byte words. row_bytes a multiple of 64, rows a multiple of 8 (and of 32 with GATE_UP).
template <int THREADS, bool GATE_UP>
__global__ void __launch_bounds__(THREADS)
    weight_layout_fragments(const unsigned* __restrict__ src, unsigned* __restrict__ dst, unsigned rows,
                            unsigned row_bytes, const MxE2m1Code code) {
    const unsigned row_words = row_bytes / 4;
    const unsigned expert_words = rows * row_words;
    const unsigned long long expert_base = (unsigned long long)blockIdx.y * expert_words;
    const unsigned k128_count = row_bytes / 64;
    for (unsigned o = blockIdx.x * THREADS + threadIdx.x; o < expert_words; o += gridDim.x * THREADS) {
        // o = ((n8 * k128_count + k128) * 8 + g) * 16 + t * 4 + kb
        const unsigned in_chunk = o % 128, chunk = o / 128;
        const unsigned k128 = chunk % k128_count, n8 = chunk / k128_count;
        const unsigned g = in_chunk / 16, t = (in_chunk / 4) % 4, kb = in_chunk % 4;
        const unsigned row = weight_layout_logical_row<GATE_UP>(n8 * 8 + g, rows);
        const unsigned col_word = k128 * 16 + kb * 4 + t;  // byte k128*64 + kb*16 + t*4
        dst[expert_base + o] = mx_e2m1_encode(code, src[expert_base + (unsigned long long)row * row_words + col_word]);
    }
}

// Scales: bytes, whole rows moved (only GATE_UP reorders anything; otherwise a copy).
template <int THREADS, bool GATE_UP>
__global__ void __launch_bounds__(THREADS)
    weight_layout_rows(const unsigned char* __restrict__ src, unsigned char* __restrict__ dst, unsigned rows,
                       unsigned row_bytes) {
    const unsigned expert_bytes = rows * row_bytes;
    const unsigned long long expert_base = (unsigned long long)blockIdx.y * expert_bytes;
    for (unsigned o = blockIdx.x * THREADS + threadIdx.x; o < expert_bytes; o += gridDim.x * THREADS) {
        const unsigned row = weight_layout_logical_row<GATE_UP>(o / row_bytes, rows);
        dst[expert_base + o] = src[expert_base + (unsigned long long)row * row_bytes + o % row_bytes];
    }
}
