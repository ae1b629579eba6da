// The reference MoE on the GPU: the judge of every candidate kernel at tuning sizes, where the CPU
// reference would take minutes. Deliberately plain: FP32 accumulation from the dequantised MXFP8
// activations and MXFP4 weights (each product exact-then-rounded once, as on the CPU), every output
// element summed by one thread in ascending k, no atomics, so the result is the same on every run.
//
//   mx_grouped_gemm    C[token*topk + slot][n] = sum_k A[a_row][k] * B[expert][n][k] for the rows of
//                      a moe_sorting result (block_m == TILE_M): every tile of TILE_M sorted rows
//                      belongs to one expert, so a weight tile in shared memory serves them all.
//                      Stage 1: A = activations (a_row = token), B = w1 [E, 2*inter, model_dim].
//                      Stage 2: A = MXFP8 stage-1 output (a_row = token*topk + slot), B = w2.
//   silu_mul           stage-1 output [M*topk, inter] = SiLU(gate) * up from C's two halves.
//   weighted_topk_sum  stage-2 output [M, model_dim] = sum over slots s = 0..topk-1, in that order,
//                      of routing weight * C row.
#include "common/mx_types.h"

template <int TILE_M, int TILE_N, int TILE_K, int THREADS>
__global__ void __launch_bounds__(THREADS)
    mx_grouped_gemm(const unsigned char* __restrict__ a_values, const unsigned char* __restrict__ a_scales,
                    const unsigned char* __restrict__ b_values, const unsigned char* __restrict__ b_scales, int n_dim,
                    int k_dim, int topk, int a_row_is_routed_row, const int* __restrict__ sorted_token_ids,
                    const int* __restrict__ sorted_expert_ids, const int* __restrict__ num_valid_ids,
                    float* __restrict__ c) {
    static_assert(TILE_K == 32, "one e8m0 scale per row per k tile");
    static_assert(THREADS == 256 && TILE_M % 16 == 0 && TILE_N % 16 == 0, "a 16x16 thread grid");
    constexpr int RM = TILE_M / 16;  // rows per thread
    constexpr int RN = TILE_N / 16;  // columns per thread
    // k-major tiles, so a thread's RM rows (RN columns) at one k are adjacent; 16-byte aligned rows
    // let those reads be vector loads.
    alignas(16) __shared__ float a_tile[TILE_K][TILE_M + 4];
    alignas(16) __shared__ float b_tile[TILE_K][TILE_N + 4];
    __shared__ int a_row[TILE_M];  // -1: a padding row
    __shared__ int out_row[TILE_M];

    const int m_block = blockIdx.y;
    if (m_block * TILE_M >= num_valid_ids[0]) return;
    const int expert = sorted_expert_ids[m_block];
    const int n0 = blockIdx.x * TILE_N;
    const int tid = threadIdx.x;

    for (int r = tid; r < TILE_M; r += THREADS) {
        const int entry = sorted_token_ids[m_block * TILE_M + r];
        const int token = entry & 0xFFFFFF;
        const int slot = (unsigned)entry >> 24;
        const bool padding = slot >= topk;
        out_row[r] = padding ? -1 : token * topk + slot;
        a_row[r] = padding ? -1 : (a_row_is_routed_row ? token * topk + slot : token);
    }

    const int k_blocks = k_dim / 32;
    const unsigned char* b_expert = b_values + (unsigned long long)expert * n_dim * (k_dim / 2);
    const unsigned char* b_expert_scales = b_scales + (unsigned long long)expert * n_dim * k_blocks;

    float acc[RM][RN];
    for (int i = 0; i < RM; ++i)
        for (int j = 0; j < RN; ++j) acc[i][j] = 0.0f;

    const int ty = tid / 16, tx = tid % 16;
    for (int kb = 0; kb < k_blocks; ++kb) {
        __syncthreads();  // a_row/out_row written; the previous tile fully consumed
        // A: TILE_M rows x 32 e4m3 bytes, 8 bytes per thread and step; consecutive threads take
        // consecutive rows, so the transposing shared-memory stores hit distinct banks.
        for (int idx = tid; idx < TILE_M * 4; idx += THREADS) {
            const int r = idx % TILE_M, part = idx / TILE_M;
            const int row = a_row[r];
            if (row < 0) {
                for (int i = 0; i < 8; ++i) a_tile[part * 8 + i][r] = 0.0f;
                continue;
            }
            const unsigned long long bytes =
                *(const unsigned long long*)(a_values + (unsigned long long)row * k_dim + kb * 32 + part * 8);
            const float scale = mx_e8m0_to_float(a_scales[(unsigned long long)row * k_blocks + kb]);
            for (int i = 0; i < 8; ++i)
                a_tile[part * 8 + i][r] = mx_e4m3fn_to_float((unsigned char)(bytes >> (8 * i))) * scale;
        }
        // B: TILE_N weight rows x 16 packed e2m1 bytes, 4 bytes (8 values) per thread and step.
        for (int idx = tid; idx < TILE_N * 4; idx += THREADS) {
            const int n = idx % TILE_N, part = idx / TILE_N;
            if (n0 + n >= n_dim) {
                for (int i = 0; i < 8; ++i) b_tile[part * 8 + i][n] = 0.0f;
                continue;
            }
            const unsigned long long row = n0 + n;
            const unsigned bytes = *(const unsigned*)(b_expert + row * (k_dim / 2) + kb * 16 + part * 4);
            const float scale = mx_e8m0_to_float(b_expert_scales[row * k_blocks + kb]);
            for (int i = 0; i < 4; ++i) {
                const unsigned char byte = (unsigned char)(bytes >> (8 * i));
                b_tile[part * 8 + 2 * i][n] = mx_e2m1_to_float(mx_e2m1_low(byte)) * scale;
                b_tile[part * 8 + 2 * i + 1][n] = mx_e2m1_to_float(mx_e2m1_high(byte)) * scale;
            }
        }
        __syncthreads();
        for (int k = 0; k < TILE_K; ++k) {
            float a[RM], b[RN];
            for (int i = 0; i < RM; ++i) a[i] = a_tile[k][ty * RM + i];
            for (int j = 0; j < RN; ++j) b[j] = b_tile[k][tx * RN + j];
            for (int i = 0; i < RM; ++i)
                for (int j = 0; j < RN; ++j) acc[i][j] += a[i] * b[j];
        }
    }

    for (int i = 0; i < RM; ++i) {
        const int dest = out_row[ty * RM + i];
        if (dest < 0) continue;
        for (int j = 0; j < RN; ++j) {
            const int n = n0 + tx * RN + j;
            if (n < n_dim) c[(unsigned long long)dest * n_dim + n] = acc[i][j];
        }
    }
}

// gate_up: [rows, 2*inter] with the gate projection in columns [0, inter) and up in [inter, 2*inter).
template <int THREADS>
__global__ void __launch_bounds__(THREADS)
    silu_mul(const float* __restrict__ gate_up, unsigned long long rows, int inter, float* __restrict__ out) {
    const unsigned long long count = rows * inter;
    const unsigned long long stride = (unsigned long long)gridDim.x * THREADS;
    for (unsigned long long i = (unsigned long long)blockIdx.x * THREADS + threadIdx.x; i < count; i += stride) {
        const unsigned long long r = i / inter, n = i % inter;
        const float gate = gate_up[r * 2 * inter + n];
        const float up = gate_up[r * 2 * inter + inter + n];
        out[i] = gate / (1.0f + expf(-gate)) * up;
    }
}

// routed: [tokens*topk, dim] rows in (token, slot) order; weights: the routing's [tokens, topk].
template <int THREADS>
__global__ void __launch_bounds__(THREADS)
    weighted_topk_sum(const float* __restrict__ routed, const float* __restrict__ weights, int tokens, int topk,
                      int dim, float* __restrict__ out) {
    const unsigned long long count = (unsigned long long)tokens * dim;
    const unsigned long long stride = (unsigned long long)gridDim.x * THREADS;
    for (unsigned long long i = (unsigned long long)blockIdx.x * THREADS + threadIdx.x; i < count; i += stride) {
        const unsigned long long t = i / dim, d = i % dim;
        float sum = 0.0f;
        for (int s = 0; s < topk; ++s) sum += weights[t * topk + s] * routed[(t * topk + s) * dim + d];
        out[i] = sum;
    }
}
