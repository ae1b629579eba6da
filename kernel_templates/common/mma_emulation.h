#pragma once
// The portable stand-in for the warp-level tensor-core products of mma_fp8.h (16x8x32 e4m3) and
// mma_bf16.h (16x8x16 bf16) on targets without those instructions (AMD through hipRTC, older
// NVIDIA). It is slow and only for checking: every candidate compiles and computes the same
// function everywhere.
//
// Both PTX fragments (row.col, FP32 accumulate) have the same register shape, per lane
// g = lane / 4, t = lane % 4:
//   a[0]: row g, fragment k block 0     a[1]: row g+8, k block 0
//   a[2]: row g, fragment k block 1     a[3]: row g+8, k block 1
//   b[0]: col g, k block 0              b[1]: col g, k block 1
//   c[0..1]: row g, cols 2t, 2t+1       c[2..3]: row g+8, cols 2t, 2t+1
// where k block h of lane t is the P elements packed into one 32-bit register at fragment k
// h*4P + P*t .. +P-1 (P = 4 e4m3 or 2 bf16). So the emulation only needs to know P and how to
// decode element i of a register: the `Elements` type.
#include "host_device.h"
#include "lane_shuffle.h"

// c += A(16 x 8P) * B(8P x 8) from the fragments above. Elements::kPerRegister is P;
// Elements::value(reg, i) the float value of element i of a register.
template <class Elements>
__device__ inline void mx_mma_emulated_16x8(float c[4], const moetune_u32 a[4], const moetune_u32 b[2]) {
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
        for (int half = 0; half < 2; ++half) {  // k block 0 (registers 0/1) and 1 (registers 2/3)
            for (int i = 0; i < Elements::kPerRegister; ++i) {
                const float x0 = Elements::value(ar[2 * half], i);      // row g
                const float x1 = Elements::value(ar[2 * half + 1], i);  // row g+8
                const float y0 = Elements::value(b0[half], i);          // col 2t
                const float y1 = Elements::value(b1[half], i);          // col 2t+1
                c[0] += x0 * y0;
                c[1] += x0 * y1;
                c[2] += x1 * y0;
                c[3] += x1 * y1;
            }
        }
    }
}
