#pragma once
// The inner product of the MoE GEMMs: one warp-level 16x8x32 FP8 (e4m3) matrix multiply with FP32
// accumulation (the FP4 weights reach it as e4m3 through mx_e2m1_coded_to_e4m3x4, mx_e2m1_code.h).
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
#include "mma_emulation.h"
#include "mx_types.h"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define MOETUNE_MMA_FP8_TENSOR_CORES 1
#else
#define MOETUNE_MMA_FP8_TENSOR_CORES 0
#endif

// How the emulation (mma_emulation.h) reads an e4m3 fragment register: 4 elements, byte i = element i.
struct MxE4m3Elements {
    static constexpr int kPerRegister = 4;
    __device__ static float value(moetune_u32 reg, int i) { return mx_e4m3fn_to_float((reg >> (8 * i)) & 0xFFu); }
};

// c = A(16x32) * B(32x8), FP32 accumulate into zeroed c. Tensor cores on sm_89+ (Ada, Hopper);
// elsewhere (AMD via hipRTC, older NVIDIA) the portable emulation from the same fragments.
__device__ inline void mx_mma_e4m3_16x8x32(float c[4], const moetune_u32 a[4], const moetune_u32 b[2]) {
#if MOETUNE_MMA_FP8_TENSOR_CORES
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    mx_mma_emulated_16x8<MxE4m3Elements>(c, a, b);
#endif
}
