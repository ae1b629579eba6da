#pragma once
// Hopper warpgroup products (PTX wgmma, sm_90a only) for the _wgmma kernels (moe_shared_gemm.h):
// bf16 operands from shared memory through matrix descriptors, FP32 accumulators in registers, with
// the fences and group waits the asynchronous products need. Compiled only where the arch-specific
// sm_90a features exist (MOETUNE_WGMMA_AVAILABLE); the kernels fall back to warp products elsewhere.
#include "host_device.h"

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define MOETUNE_WGMMA_AVAILABLE 1
#else
#define MOETUNE_WGMMA_AVAILABLE 0
#endif

// What a _wgmma loop does when compiled for a target without wgmma: such kernels are pruned there
// (static_checks.h); one named explicitly stops here.
__device__ inline void mx_wgmma_unavailable() {
#if defined(__CUDA_ARCH__)
    __trap();
#else
    __builtin_trap();
#endif
}

#if MOETUNE_WGMMA_AVAILABLE
// The shared-memory matrix descriptor of a K-major operand in the 128-byte swizzle: rows of 128
// bytes (64 bf16 of K), 8-row groups 1024 bytes apart (stride byte offset), the leading offset
// unused by this layout (1 by convention); `tile` must lie in a 1024-byte aligned block.
__device__ inline moetune_u64 mx_wgmma_descriptor(const void* tile) {
    const moetune_u64 address = moetune_u64(__cvta_generic_to_shared(tile));
    return ((address & 0x3FFFFu) >> 4) | (moetune_u64(1) << 16) | (moetune_u64(1024 >> 4) << 32) |
           (moetune_u64(1) << 62);
}

// Orders this thread's earlier accumulator register accesses before the products that follow.
__device__ inline void mx_wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
// Closes the products issued so far into a group, and waits until no group is pending.
__device__ inline void mx_wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
__device__ inline void mx_wgmma_wait_all() { asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory"); }
// Waits until at most one group is pending: the one committed last may still run.
__device__ inline void mx_wgmma_wait_one() { asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory"); }
// Makes this thread's ordinary shared-memory stores visible to the products (the async proxy);
// a barrier must follow before another thread's products read them.
__device__ inline void mx_fence_shared_for_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
// Keeps the compiler from moving accesses of v across the asynchronous products.
__device__ inline void mx_wgmma_pin(float& v) { asm volatile("" : "+f"(v)::"memory"); }

// The accumulator operands of a product: d[0] .. d[N - 1] as read-write registers %0 .. %N-1, the
// order wgmma lists its D fragment in.
#define MX_WGMMA_ACCUMULATORS_4(d, i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3])
#define MX_WGMMA_ACCUMULATORS_8_AT(d, i) MX_WGMMA_ACCUMULATORS_4(d, i), MX_WGMMA_ACCUMULATORS_4(d, i + 4)
#define MX_WGMMA_ACCUMULATORS_32_AT(d, i)                                                             \
    MX_WGMMA_ACCUMULATORS_8_AT(d, i), MX_WGMMA_ACCUMULATORS_8_AT(d, i + 8), MX_WGMMA_ACCUMULATORS_8_AT(d, i + 16), \
        MX_WGMMA_ACCUMULATORS_8_AT(d, i + 24)
#define MX_WGMMA_ACCUMULATORS_8(d) MX_WGMMA_ACCUMULATORS_8_AT(d, 0)
#define MX_WGMMA_ACCUMULATORS_16(d) MX_WGMMA_ACCUMULATORS_8_AT(d, 0), MX_WGMMA_ACCUMULATORS_8_AT(d, 8)
#define MX_WGMMA_ACCUMULATORS_32(d) MX_WGMMA_ACCUMULATORS_32_AT(d, 0)
#define MX_WGMMA_ACCUMULATORS_64(d) MX_WGMMA_ACCUMULATORS_32_AT(d, 0), MX_WGMMA_ACCUMULATORS_32_AT(d, 32)
#define MX_WGMMA_ACCUMULATORS_128(d)                                                                 \
    MX_WGMMA_ACCUMULATORS_32_AT(d, 0), MX_WGMMA_ACCUMULATORS_32_AT(d, 32), MX_WGMMA_ACCUMULATORS_32_AT(d, 64), \
        MX_WGMMA_ACCUMULATORS_32_AT(d, 96)

// d (m64n16k16, 8 floats per thread) += A (64x16, descriptor a) * B (16x16 K-major, descriptor b).
__device__ inline void mx_wgmma_bf16_m64n16k16(float (&d)[8], moetune_u64 a, moetune_u64 b) {
    asm volatile(
        "{\n.reg .pred accumulate;\nsetp.ne.b32 accumulate, %10, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, accumulate, 1, 1, 0, 0;\n}\n"
        : MX_WGMMA_ACCUMULATORS_8(d)
        : "l"(a), "l"(b), "r"(1));
}

// d (m64n32k16, 16 floats per thread) += A (64x16, descriptor a) * B (32x16 K-major, descriptor b).
__device__ inline void mx_wgmma_bf16_m64n32k16(float (&d)[16], moetune_u64 a, moetune_u64 b) {
    asm volatile(
        "{\n.reg .pred accumulate;\nsetp.ne.b32 accumulate, %18, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, accumulate, 1, 1, 0, 0;\n}\n"
        : MX_WGMMA_ACCUMULATORS_16(d)
        : "l"(a), "l"(b), "r"(1));
}

// d (m64n64k16, 32 floats per thread) += A (64x16, descriptor a) * B (64x16 K-major, descriptor b).
__device__ inline void mx_wgmma_bf16_m64n64k16(float (&d)[32], moetune_u64 a, moetune_u64 b) {
    asm volatile(
        "{\n.reg .pred accumulate;\nsetp.ne.b32 accumulate, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
        "%32, %33, accumulate, 1, 1, 0, 0;\n}\n"
        : MX_WGMMA_ACCUMULATORS_32(d)
        : "l"(a), "l"(b), "r"(1));
}

// d (m64n128k16, 64 floats per thread) += A (64x16, descriptor a) * B (128x16 K-major, descriptor b).
__device__ inline void mx_wgmma_bf16_m64n128k16(float (&d)[64], moetune_u64 a, moetune_u64 b) {
    asm volatile(
        "{\n.reg .pred accumulate;\nsetp.ne.b32 accumulate, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
        "%64, %65, accumulate, 1, 1, 0, 0;\n}\n"
        : MX_WGMMA_ACCUMULATORS_64(d)
        : "l"(a), "l"(b), "r"(1));
}

// d (m64n256k16, 128 floats per thread) += A (64x16, descriptor a) * B (256x16 K-major, descriptor b).
__device__ inline void mx_wgmma_bf16_m64n256k16(float (&d)[128], moetune_u64 a, moetune_u64 b) {
    asm volatile(
        "{\n.reg .pred accumulate;\nsetp.ne.b32 accumulate, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
        "%128, %129, accumulate, 1, 1, 0, 0;\n}\n"
        : MX_WGMMA_ACCUMULATORS_128(d)
        : "l"(a), "l"(b), "r"(1));
}

// The product of B width N (16, 32: the token rows of the swapped tiles; 64, 128 or 256 weight rows).
template <int N>
__device__ inline void mx_wgmma_bf16_m64k16(float (&d)[N / 2], moetune_u64 a, moetune_u64 b) {
    if constexpr (N == 16) mx_wgmma_bf16_m64n16k16(d, a, b);
    else if constexpr (N == 32) mx_wgmma_bf16_m64n32k16(d, a, b);
    else if constexpr (N == 64) mx_wgmma_bf16_m64n64k16(d, a, b);
    else if constexpr (N == 128) mx_wgmma_bf16_m64n128k16(d, a, b);
    else {
        static_assert(N == 256, "wgmma products are 16, 32, 64, 128 or 256 wide here");
        mx_wgmma_bf16_m64n256k16(d, a, b);
    }
}
#endif
