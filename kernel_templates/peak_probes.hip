// The device's ceilings, measured for the roofline of `moetune bench --hbm-tbps 0 --peak-tflops 0`
// (tuner/bench/peak_probes.h): HBM bandwidth as a copy by SM kernels, and the dense FP8 tensor rate as
// warpgroup products on operands already in shared memory, each without anything else on its path.
#include "common/host_device.h"
#include "common/memory.h"
#include "common/wgmma_fp8.h"

// dst = src, `words` 16-byte words: UNROLL loads in flight a thread before their stores, the threads
// of the grid striding over the buffers, so every SM streams (bytes read + bytes written = the traffic).
template <int THREADS, int UNROLL>
__global__ void __launch_bounds__(THREADS) peak_hbm_copy(const mx_u32x4* src, mx_u32x4* dst, long long words) {
    const long long stride = (long long)gridDim.x * THREADS;
    for (long long first = (long long)blockIdx.x * THREADS + threadIdx.x; first < words; first += UNROLL * stride) {
        mx_u32x4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
            if (first + u * stride < words) v[u] = mx_load16<true>(src + first + u * stride);
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
            if (first + u * stride < words) mx_store16(dst + first + u * stride, v[u]);
    }
}

// Reads `words` 16-byte words of src as the copy does, without writing them: the way the MoE streams its weights,
// which a copy's turnarounds between reads and writes can slow (an H100's copy moved 2.80 TB/s while the MoE read
// 2.84: docs/results/2026-12-06-h100-routings). Each thread folds its words into one; only a fold equal to `never`
// (which the host makes impossible) is stored, so the loads stay and nothing else is written.
template <int THREADS, int UNROLL>
__global__ void __launch_bounds__(THREADS) peak_hbm_read(const mx_u32x4* src, long long words, moetune_u32 never,
                                                         moetune_u32* sink) {
    const long long stride = (long long)gridDim.x * THREADS;
    moetune_u32 fold = 0;
    for (long long first = (long long)blockIdx.x * THREADS + threadIdx.x; first < words; first += UNROLL * stride) {
        mx_u32x4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
            if (first + u * stride < words) v[u] = mx_load16<true>(src + first + u * stride);
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
            if (first + u * stride < words) fold ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
    if (fold == never) sink[0] = fold;
}

// Bytes of the product tiles: A 64 x 128 and B 256 x 128 e4m3, K-major rows of 128 bytes in the
// 128-byte swizzle (wgmma_bf16.h's descriptor), four k32 products a round.
constexpr int kPeakTileK = 128;
constexpr int kPeakTileA = 64 * kPeakTileK;
constexpr int kPeakTileB = 256 * kPeakTileK;

// Each of the WARPGROUPS warpgroups of a workgroup runs `rounds` rounds of four m64n256k32 e4m3 products
// into its 128 accumulators, 2 * 64 * 256 * 128 FLOP a round, a group of products in flight while it
// issues the next. The tiles hold finite values of every magnitude bit, not zeros, so the tensor pipes
// switch as on real operands. Each thread's sum of its accumulators goes to sink, so nothing is dropped.
template <int WARPGROUPS>
__global__ void __launch_bounds__(WARPGROUPS * 128) peak_fp8_products(float* sink, int rounds) {
#if MOETUNE_WGMMA_AVAILABLE
    // The descriptors' 128-byte swizzle needs 1024-byte aligned tiles: the first such address of the array.
    __shared__ __attribute__((aligned(16))) unsigned char shared[kPeakTileA + kPeakTileB + 1024];
    unsigned char* tiles = shared + ((1024 - int(__cvta_generic_to_shared(shared) & 1023u)) & 1023);
    for (int i = int(threadIdx.x); i < kPeakTileA + kPeakTileB; i += WARPGROUPS * 128)
        // e4m3 0x20 .. 0x57 (0.125 .. 15), both signs.
        tiles[i] = (unsigned char)(0x20 + (i * 37) % 0x38) | (unsigned char)((i & 64) << 1);
    mx_fence_shared_for_async();
    __syncthreads();
    const moetune_u64 a = mx_wgmma_descriptor(tiles);
    const moetune_u64 b = mx_wgmma_descriptor(tiles + kPeakTileA);
    float d[128];
    for (int e = 0; e < 128; ++e) d[e] = 0.f;
    for (int r = 0; r < rounds; ++r) {
        mx_wgmma_fence();
#pragma unroll
        for (int k = 0; k < kPeakTileK / 32; ++k)  // the descriptors' addresses count 16-byte units
            mx_wgmma_e4m3_m64n256k32(d, a + 2 * k, b + 2 * k, 1);
        mx_wgmma_commit();
        mx_wgmma_wait_one();
    }
    mx_wgmma_wait_all();
    float sum = 0.f;
    for (int e = 0; e < 128; ++e) sum += d[e];
    sink[blockIdx.x * (WARPGROUPS * 128) + threadIdx.x] = sum;
#else
    (void)sink;
    (void)rounds;
    mx_wgmma_unavailable();
#endif
}
