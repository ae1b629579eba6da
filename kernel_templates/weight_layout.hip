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
#include "common/mx_f16_code.h"

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

// The _gemv kernels' copy (common/mx_f16_gemv.h, kernels::WeightCopy::f16_tiles): per expert, 16-row
// tiles x pairs of 32-wide K blocks x 32 lanes x 4 words, each word 8 elements of two rows in the f16
// code; and per tile and pair 8 scale words. With GATE_UP, tile r's rows 0..7 are logical (gate) rows
// 8r.., its rows 8..15 the up rows rows/2 + 8r.. (common/mx_f16_code.h). Both the same permutation as the
// host's formats::lay_out_f16_tile_values / lay_out_f16_tile_scales.
// Values: one output word a thread. Byte i of the plain word (element 2i low nibble, 2i + 1 high) is one
// logical byte (mx_f16_tile_row_of, mx_f16_tile_k_of). K a multiple of 64, rows of 16 (32 with GATE_UP).
template <int THREADS, bool GATE_UP>
__global__ void __launch_bounds__(THREADS)
    weight_layout_f16_tiles(const unsigned char* __restrict__ src, unsigned* __restrict__ dst, unsigned rows,
                            unsigned K, const MxE2m1Code code) {
    const unsigned row_bytes = K / 2, pairs = K / 64;
    const unsigned expert_words = rows * K / 8;
    const unsigned long long expert_base = (unsigned long long)blockIdx.y * expert_words;
    const unsigned char* expert = src + (unsigned long long)blockIdx.y * rows * row_bytes;
    for (unsigned o = blockIdx.x * THREADS + threadIdx.x; o < expert_words; o += gridDim.x * THREADS) {
        const unsigned j = o % 4, lane = (o / 4) % 32, p = (o / 128) % pairs, tile = o / 128 / pairs;
        const unsigned g = lane / 4, t = lane % 4;
        unsigned plain = 0;
        for (unsigned i = 0; i < 4; ++i) {
            const unsigned row = mx_f16_tile_logical_row(tile, mx_f16_tile_row_of(g, i), rows, GATE_UP);
            const unsigned k = mx_f16_tile_k_of(p, j, t, i);
            plain |= unsigned(expert[(unsigned long long)row * row_bytes + k / 2]) << (8 * i);
        }
        dst[expert_base + o] = mx_e2m1_encode(code, plain);
    }
}

// Scales: one output word a thread: byte b is (row mx_f16_tile_row_of(g, b), block mx_f16_tile_scale_block(p, b))
// of tile `tile`: (g, 2p), (g + 8, 2p), (g, 2p + 1), (g + 8, 2p + 1).
template <int THREADS, bool GATE_UP>
__global__ void __launch_bounds__(THREADS)
    weight_layout_f16_tile_scales(const unsigned char* __restrict__ src, unsigned* __restrict__ dst, unsigned rows,
                                  unsigned K) {
    const unsigned row_bytes = K / 32, pairs = K / 64;
    const unsigned expert_words = rows / 16 * pairs * 8;
    const unsigned long long expert_base = (unsigned long long)blockIdx.y * expert_words;
    const unsigned char* expert = src + (unsigned long long)blockIdx.y * rows * row_bytes;
    for (unsigned o = blockIdx.x * THREADS + threadIdx.x; o < expert_words; o += gridDim.x * THREADS) {
        const unsigned g = o % 8, p = (o / 8) % pairs, tile = o / 8 / pairs;
        unsigned word = 0;
        for (unsigned b = 0; b < 4; ++b) {
            const unsigned row = mx_f16_tile_logical_row(tile, mx_f16_tile_row_of(g, b), rows, GATE_UP);
            word |= unsigned(expert[(unsigned long long)row * row_bytes + mx_f16_tile_scale_block(p, b)]) << (8 * b);
        }
        dst[expert_base + o] = word;
    }
}
