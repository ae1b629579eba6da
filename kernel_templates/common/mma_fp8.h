#pragma once
// The inner product of the MoE GEMMs: one warp-level 16x8x32 FP8 (e4m3) matrix multiply with FP32
// accumulation, and the widening of packed FP4 (e2m1) weights to e4m3 that feeds it.
//
// Fragment convention (PTX mma.m16n8k32 .e4m3, row.col), per lane: g = lane / 4, t = lane % 4.
//   a[0]: row g,   fragment k 4t..4t+3      a[1]: row g+8, fragment k 4t..4t+3
//   a[2]: row g,   fragment k 16+4t..+3     a[3]: row g+8, fragment k 16+4t..+3
//   b[0]: col g,   fragment k 4t..4t+3      b[1]: col g,   fragment k 16+4t..+3
//   c[0..1]: row g, cols 2t, 2t+1           c[2..3]: row g+8, cols 2t, 2t+1
// A dot product over one 32-wide MX block does not depend on the order of its k, so moetune maps
// fragment k 4t..4t+3 to *actual* k 8t..8t+3 and fragment k 16+4t..+3 to actual k 8t+4..8t+7:
// each lane then reads 8 consecutive activation bytes and 4 consecutive FP4 weight bytes per block.
// A and B use the same map, so the product is exact.
#include "host_device.h"
#include "mx_types.h"

// Four e2m1 codes (16 bits, element j in bits 4j..4j+3) -> four e4m3fn bytes (element j in byte j).
// Every e2m1 value is exactly representable in e4m3fn. The magnitude table below is
// {0, 0.5, 1, 1.5, 2, 3, 4, 6} in e4m3fn; the sign bit (nibble bit 3) moves to byte bit 7.
__device__ inline moetune_u32 mx_widen_e2m1x4_to_e4m3(moetune_u32 nibbles) {
    const moetune_u32 signs = ((nibbles & 0x0008u) << 4) | ((nibbles & 0x0080u) << 8) |
                              ((nibbles & 0x0800u) << 12) | ((nibbles & 0x8000u) << 16);
#if defined(__CUDA_ARCH__)
    // prmt picks byte (selector nibble & 7) of the 8-byte pair {lo, hi}: a 3-bit table lookup per byte.
    const moetune_u32 lo = 0x3C383000u;  // magnitudes 0..3: 0x00 0x30 0x38 0x3C
    const moetune_u32 hi = 0x4C484440u;  // magnitudes 4..7: 0x40 0x44 0x48 0x4C
    return __byte_perm(lo, hi, nibbles & 0x7777u) | signs;
#else
    moetune_u32 out = 0;
    for (int j = 0; j < 4; ++j) {
        const moetune_u32 magnitude = (nibbles >> (4 * j)) & 7u;
        const moetune_u32 e4m3 = magnitude == 0 ? 0u : magnitude == 1 ? 0x30u : (((magnitude >> 1) + 6u) << 3) | ((magnitude & 1u) << 2);
        out |= e4m3 << (8 * j);
    }
    return out | signs;
#endif
}

// Lane shuffle within 32-lane groups (a 64-wide AMD wavefront holds two such groups).
__device__ inline moetune_u32 mx_shfl(moetune_u32 v, int src_lane) {
#if defined(__CUDA_ARCH__)
    return __shfl_sync(0xFFFFFFFFu, v, src_lane, 32);
#else
    return __shfl(v, src_lane, 32);
#endif
}

__device__ inline float mx_shfl_xor(float v, int mask) {
#if defined(__CUDA_ARCH__)
    return __shfl_xor_sync(0xFFFFFFFFu, v, mask, 32);
#else
    return __shfl_xor(v, mask, 32);
#endif
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define MOETUNE_MMA_FP8_TENSOR_CORES 1
#else
#define MOETUNE_MMA_FP8_TENSOR_CORES 0
#endif

// c = A(16x32) * B(32x8), FP32 accumulate into zeroed c. Tensor cores on sm_89+ (Ada, Hopper);
// elsewhere (AMD via hipRTC, older NVIDIA) a portable emulation from the same fragments, which is
// slow but computes the same function so every candidate can be compiled and checked everywhere.
__device__ inline void mx_mma_e4m3_16x8x32(float c[4], const moetune_u32 a[4], const moetune_u32 b[2]) {
#if MOETUNE_MMA_FP8_TENSOR_CORES
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    // Lane (g, t) needs rows g, g+8 of A (held by lanes 4g..4g+3) and columns 2t, 2t+1 of B (held by
    // lanes 8t..8t+3 and 8t+4..8t+7). Every lane takes part in every shuffle.
    const int lane = int(threadIdx.x) & 31;
    const int g = lane >> 2, t = lane & 3;
    for (int src_t = 0; src_t < 4; ++src_t) {
        const int a_lane = 4 * g + src_t;
        moetune_u32 ar[4], b0[2], b1[2];
        for (int r = 0; r < 4; ++r) ar[r] = mx_shfl(a[r], a_lane);
        for (int r = 0; r < 2; ++r) {
            b0[r] = mx_shfl(b[r], 4 * (2 * t) + src_t);
            b1[r] = mx_shfl(b[r], 4 * (2 * t + 1) + src_t);
        }
        for (int half = 0; half < 2; ++half) {      // fragment k 4t.. (regs 0/1) and 16+4t.. (regs 2/3)
            for (int byte = 0; byte < 4; ++byte) {
                const float x0 = mx_e4m3fn_to_float((ar[2 * half] >> (8 * byte)) & 0xFFu);      // row g
                const float x1 = mx_e4m3fn_to_float((ar[2 * half + 1] >> (8 * byte)) & 0xFFu);  // row g+8
                const float y0 = mx_e4m3fn_to_float((b0[half] >> (8 * byte)) & 0xFFu);          // col 2t
                const float y1 = mx_e4m3fn_to_float((b1[half] >> (8 * byte)) & 0xFFu);          // col 2t+1
                c[0] += x0 * y0;
                c[1] += x0 * y1;
                c[2] += x1 * y0;
                c[3] += x1 * y1;
            }
        }
    }
#endif
}
