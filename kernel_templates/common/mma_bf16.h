#pragma once
// The inner product of the BF16 path (KernelConfig::mma = bf16, name token _mbf16): one warp-level
// 16x8x16 bf16 matrix multiply with FP32 accumulation, fed by MX operands widened to bf16 with
// their scales folded in (mx_bf16_widen.h), so partial products need no per-block rescale.
//
// Fragment convention (PTX mma.m16n8k16 .bf16, row.col), per lane g = lane / 4, t = lane % 4,
// two bf16 per register (low half first):
//   a[0]: row g,   fragment k 2t, 2t+1      a[1]: row g+8, fragment k 2t, 2t+1
//   a[2]: row g,   fragment k 2t+8, 2t+9    a[3]: row g+8, fragment k 2t+8, 2t+9
//   b[0]: col g,   fragment k 2t, 2t+1      b[1]: col g,   fragment k 2t+8, 2t+9
//   c[0..1]: row g, cols 2t, 2t+1           c[2..3]: row g+8, cols 2t, 2t+1
// C is laid out as in the e4m3 16x8x32 product (mma_fp8.h), so the accumulators and epilogues
// are shared. A 32-wide MX block takes two of these products, h = 0 and 1. The loads are the FP8
// path's: lane t holds actual k 8t..8t+7 of the block for its rows (8 activation bytes, 4 FP4
// weight bytes). Product h uses actual k 8t+4h..8t+4h+3, widened as pairs (mx_bf16_widen.h):
//   fragment k 2t, 2t+1   <- actual k 8t+4h,   8t+4h+2   (the "even" pair)
//   fragment k 2t+8, 2t+9 <- actual k 8t+4h+1, 8t+4h+3   (the "odd" pair)
// Over t = 0..3 and both h that maps the 2 x 16 fragment k one to one onto the block's 32 k, and
// A (rows g, g+8) and B (col g) use the same map because it depends only on t and h, so the sum of
// the two products is exactly the block's dot product in another order.
#include "host_device.h"
#include "mma_emulation.h"
#include "mx_bf16_widen.h"
#include "mx_types.h"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define MOETUNE_MMA_BF16_TENSOR_CORES 1
#else
#define MOETUNE_MMA_BF16_TENSOR_CORES 0
#endif

// How the emulation (mma_emulation.h) reads a bf16 fragment register: 2 elements, half i = element i.
struct MxBf16Elements {
    static constexpr int kPerRegister = 2;
    __device__ static float value(moetune_u32 reg, int i) { return mx_bf16_to_float((unsigned short)(reg >> (16 * i))); }
};

// c += A(16x16) * B(16x8). Tensor cores on sm_80+ (Ampere, Ada, Hopper); elsewhere (AMD via
// hipRTC, older NVIDIA) the portable emulation from the same fragments.
__device__ inline void mx_mma_bf16_16x8x16(float c[4], const moetune_u32 a[4], const moetune_u32 b[2]) {
#if MOETUNE_MMA_BF16_TENSOR_CORES
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    mx_mma_emulated_16x8<MxBf16Elements>(c, a, b);
#endif
}
