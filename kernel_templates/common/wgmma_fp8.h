#pragma once
// Hopper warpgroup products of e4m3 operands (PTX wgmma .e4m3.e4m3, sm_90a only) for the FP8
// _wgmma kernels (moe_fp8_wgmma_gemm.h): both operands K-major in shared memory through matrix
// descriptors (wgmma_bf16.h's, whose 128-byte rows hold 128 e4m3 here), FP32 accumulators in
// registers. One product covers 32 of K, one MX block.
#include "wgmma_bf16.h"

#if MOETUNE_WGMMA_AVAILABLE
// One e4m3 warpgroup product: D the accumulators' operand list, A and B the operands (a descriptor,
// or A's register list), P the accumulate flag's operand.
#define MX_WGMMA_E4M3(N, D, A, B, P)                                                            \
    "{\n.reg .pred accumulate;\nsetp.ne.b32 accumulate, " P ", 0;\n"                          \
    "wgmma.mma_async.sync.aligned.m64n" #N "k32.f32.e4m3.e4m3 " D ", " A ", " B ", accumulate, 1, 1;\n}\n"
// The accumulators' operands, 32 at a time.
#define MX_WGMMA_D0 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, " \
                    "%21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define MX_WGMMA_D32 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, " \
                     "%51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define MX_WGMMA_D64 "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, " \
                     "%83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
#define MX_WGMMA_D96 "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
                     "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"

// d (m64nNk32, N / 2 floats per thread) += A (64x32 e4m3, descriptor a) * B (Nx32 e4m3, descriptor b).
__device__ inline void mx_wgmma_e4m3_m64n64k32(float (&d)[32], moetune_u64 a, moetune_u64 b, int accumulate) {
    asm volatile(MX_WGMMA_E4M3(64, "{" MX_WGMMA_D0 "}", "%32", "%33", "%34")
                 : MX_WGMMA_ACCUMULATORS_32(d)
                 : "l"(a), "l"(b), "r"(accumulate));
}
__device__ inline void mx_wgmma_e4m3_m64n128k32(float (&d)[64], moetune_u64 a, moetune_u64 b, int accumulate) {
    asm volatile(MX_WGMMA_E4M3(128, "{" MX_WGMMA_D0 ", " MX_WGMMA_D32 "}", "%64", "%65", "%66")
                 : MX_WGMMA_ACCUMULATORS_64(d)
                 : "l"(a), "l"(b), "r"(accumulate));
}
__device__ inline void mx_wgmma_e4m3_m64n192k32(float (&d)[96], moetune_u64 a, moetune_u64 b, int accumulate) {
    asm volatile(MX_WGMMA_E4M3(192, "{" MX_WGMMA_D0 ", " MX_WGMMA_D32 ", " MX_WGMMA_D64 "}", "%96", "%97", "%98")
                 : MX_WGMMA_ACCUMULATORS_64(d), MX_WGMMA_ACCUMULATORS_32_AT(d, 64)
                 : "l"(a), "l"(b), "r"(accumulate));
}
__device__ inline void mx_wgmma_e4m3_m64n256k32(float (&d)[128], moetune_u64 a, moetune_u64 b, int accumulate) {
    asm volatile(MX_WGMMA_E4M3(256, "{" MX_WGMMA_D0 ", " MX_WGMMA_D32 ", " MX_WGMMA_D64 ", " MX_WGMMA_D96 "}", "%128",
                               "%129", "%130")
                 : MX_WGMMA_ACCUMULATORS_64(d), MX_WGMMA_ACCUMULATORS_32_AT(d, 64), MX_WGMMA_ACCUMULATORS_32_AT(d, 96)
                 : "l"(a), "l"(b), "r"(accumulate));
}
#undef MX_WGMMA_D0
#undef MX_WGMMA_D32
#undef MX_WGMMA_D64
#undef MX_WGMMA_D96

// accumulate 0: d = A * B, the accumulators' old values ignored (a fresh partial sum).
template <int N>
__device__ inline void mx_wgmma_e4m3_m64k32(float (&d)[N / 2], moetune_u64 a, moetune_u64 b, int accumulate = 1) {
    if constexpr (N == 64) mx_wgmma_e4m3_m64n64k32(d, a, b, accumulate);
    else if constexpr (N == 192) mx_wgmma_e4m3_m64n192k32(d, a, b, accumulate);
    else if constexpr (N == 256) mx_wgmma_e4m3_m64n256k32(d, a, b, accumulate);
    else {
        static_assert(N == 128, "FP8 warpgroup products are 64, 128, 192 or 256 wide here");
        mx_wgmma_e4m3_m64n128k32(d, a, b, accumulate);
    }
}

// A from registers (the register-fed FP8 kernels, moe_fp8_register_gemm.h): warp w of the warpgroup
// gives rows 16w.. of A, lane (g, t) a[0] = row g, k 4t..4t+3; a[1] = row g + 8, the same k; a[2],
// a[3] = those rows at k 16 + 4t..16 + 4t + 3 (4 e4m3 a register, byte i = k + i), the fragment of
// mma.m16n8k32. B (N x 32 e4m3, K-major) from shared memory; d = A * B (accumulate 0) or d += A * B.
// N is the tile's token rows: 8, 16 or 32.
__device__ inline void mx_wgmma_e4m3_rs_m64n8k32(float (&d)[4], const moetune_u32 (&a)[4], moetune_u64 b,
                                                 int accumulate) {
    asm volatile(MX_WGMMA_E4M3(8, "{%0, %1, %2, %3}", "{%4, %5, %6, %7}", "%8", "%9")
                 : MX_WGMMA_ACCUMULATORS_4(d, 0)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate));
}
__device__ inline void mx_wgmma_e4m3_rs_m64n16k32(float (&d)[8], const moetune_u32 (&a)[4], moetune_u64 b,
                                                  int accumulate) {
    asm volatile(MX_WGMMA_E4M3(16, "{%0, %1, %2, %3, %4, %5, %6, %7}", "{%8, %9, %10, %11}", "%12", "%13")
                 : MX_WGMMA_ACCUMULATORS_8(d)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate));
}
__device__ inline void mx_wgmma_e4m3_rs_m64n32k32(float (&d)[16], const moetune_u32 (&a)[4], moetune_u64 b,
                                                  int accumulate) {
    asm volatile(MX_WGMMA_E4M3(32, "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}",
                               "{%16, %17, %18, %19}", "%20", "%21")
                 : MX_WGMMA_ACCUMULATORS_16(d)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate));
}
#undef MX_WGMMA_E4M3

template <int N>
__device__ inline void mx_wgmma_e4m3_rs_m64k32(float (&d)[N / 2], const moetune_u32 (&a)[4], moetune_u64 b,
                                               int accumulate) {
    if constexpr (N == 8) mx_wgmma_e4m3_rs_m64n8k32(d, a, b, accumulate);
    else if constexpr (N == 16) mx_wgmma_e4m3_rs_m64n16k32(d, a, b, accumulate);
    else {
        static_assert(N == 32, "register-fed FP8 warpgroup products are 8, 16 or 32 wide here");
        mx_wgmma_e4m3_rs_m64n32k32(d, a, b, accumulate);
    }
}

#endif
