#pragma once
// Hopper warpgroup products of e4m3 operands (PTX wgmma .e4m3.e4m3, sm_90a only) for the FP8
// _wgmma kernels (moe_fp8_wgmma_gemm.h): both operands K-major in shared memory through matrix
// descriptors (wgmma_bf16.h's, whose 128-byte rows hold 128 e4m3 here), FP32 accumulators in
// registers. One product covers 32 of K, one MX block.
#include "wgmma_bf16.h"

#if MOETUNE_WGMMA_AVAILABLE
// d (m64n64k32, 32 floats per thread) += A (64x32 e4m3, descriptor a) * B (64x32 e4m3, descriptor b).
__device__ inline void mx_wgmma_e4m3_m64n64k32(float (&d)[32], moetune_u64 a, moetune_u64 b, int accumulate) {
    asm volatile(
        "{\n.reg .pred accumulate;\nsetp.ne.b32 accumulate, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, "
        "%23, %24, %25, %26, %27, %28, %29, %30, %31}, "
        "%32, %33, accumulate, 1, 1;\n}\n"
        : MX_WGMMA_ACCUMULATORS_32(d)
        : "l"(a), "l"(b), "r"(accumulate));
}

// d (m64n128k32, 64 floats per thread) += A (64x32 e4m3, descriptor a) * B (128x32 e4m3, descriptor b).
__device__ inline void mx_wgmma_e4m3_m64n128k32(float (&d)[64], moetune_u64 a, moetune_u64 b, int accumulate) {
    asm volatile(
        "{\n.reg .pred accumulate;\nsetp.ne.b32 accumulate, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, "
        "%23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, "
        "%44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
        "%64, %65, accumulate, 1, 1;\n}\n"
        : MX_WGMMA_ACCUMULATORS_64(d)
        : "l"(a), "l"(b), "r"(accumulate));
}

// accumulate 0: d = A * B, the accumulators' old values ignored (a fresh partial sum).
template <int N>
__device__ inline void mx_wgmma_e4m3_m64k32(float (&d)[N / 2], moetune_u64 a, moetune_u64 b, int accumulate = 1) {
    if constexpr (N == 64) mx_wgmma_e4m3_m64n64k32(d, a, b, accumulate);
    else {
        static_assert(N == 128, "FP8 warpgroup products are 64 or 128 wide here");
        mx_wgmma_e4m3_m64n128k32(d, a, b, accumulate);
    }
}

#endif
