#pragma once
// Global-memory access of the MoE kernels: vector loads of weights (optionally non-temporal, so a
// weight stream that is read once does not evict the activations from L2), and the packed bf16
// atomic add of stage 2's atomic mode.
#include "host_device.h"
#include "mx_types.h"

struct mx_u32x4 {
    moetune_u32 x, y, z, w;
};

// 16 bytes from a 16-byte aligned address. NON_TEMPORAL: streaming (evict-first) cache policy.
template <bool NON_TEMPORAL>
__device__ inline mx_u32x4 mx_load16(const void* p) {
    mx_u32x4 v;
#if defined(__CUDA_ARCH__)
    if (NON_TEMPORAL) {
        asm volatile("ld.global.cs.v4.u32 {%0,%1,%2,%3}, [%4];\n"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    } else {
        asm volatile("ld.global.nc.v4.u32 {%0,%1,%2,%3}, [%4];\n"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    }
#else
    const moetune_u32* q = static_cast<const moetune_u32*>(p);
    if (NON_TEMPORAL) {
        v.x = __builtin_nontemporal_load(q + 0);
        v.y = __builtin_nontemporal_load(q + 1);
        v.z = __builtin_nontemporal_load(q + 2);
        v.w = __builtin_nontemporal_load(q + 3);
    } else {
        v.x = q[0];
        v.y = q[1];
        v.z = q[2];
        v.w = q[3];
    }
#endif
    return v;
}

// 16 bytes of a weight stream that no other workgroup reads again, not kept in L1, read-only path (the
// few-token GEMVs, mx_f16_gemv.h; measured on an H100 beside .cs and L2::256B: gemv_probe.cu).
__device__ inline mx_u32x4 mx_load16_stream(const void* p) {
#if defined(__CUDA_ARCH__)
    mx_u32x4 v;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    return v;
#else
    return mx_load16<true>(p);
#endif
}

__device__ inline moetune_u32 mx_u32x4_get(const mx_u32x4& v, int i) {
    return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

// Word i of v, with v hidden from the optimiser (an empty asm, no instruction): the loop over a
// chunk's blocks picks its weight word this way so that the compiler cannot widen all four blocks'
// words ahead of the loop, which holds them all in registers (250 instead of 164 for a 16x128 tile).
__device__ inline moetune_u32 mx_u32x4_get_opaque(mx_u32x4 v, int i) {
#if defined(__CUDA_ARCH__)
    asm volatile("" : "+r"(v.x), "+r"(v.y), "+r"(v.z), "+r"(v.w));
#elif defined(__HIP_DEVICE_COMPILE__)
    asm volatile("" : "+v"(v.x), "+v"(v.y), "+v"(v.z), "+v"(v.w));
#endif
    return mx_u32x4_get(v, i);
}

// 16 bytes to / from a 16-byte aligned address, shared or global memory (one vector access: the
// aligned type lets the compiler use st/ld.v4 (.shared where it knows the space) on NVIDIA and
// ds_write/read_b128 or global_store_dwordx4 on AMD).
struct alignas(16) mx_aligned_u32x4 {
    moetune_u32 x, y, z, w;
};
__device__ inline void mx_store16(void* p, mx_u32x4 v) {
    *reinterpret_cast<mx_aligned_u32x4*>(p) = mx_aligned_u32x4{v.x, v.y, v.z, v.w};
}
__device__ inline mx_u32x4 mx_load_shared16(const unsigned char* p) {
    const mx_aligned_u32x4 v = *reinterpret_cast<const mx_aligned_u32x4*>(p);
    return mx_u32x4{v.x, v.y, v.z, v.w};
}

// 16 and 2 bytes through the read-only cache as ordinary loads, which the compiler may hoist and batch
// across an unrolled loop (mx_load16 is volatile asm and stays where it is written): the rows a
// few-token GEMV multiplies, which every warp of a tile reads again (mx_f16_gemv.h).
__device__ inline mx_u32x4 mx_load16_ldg(const void* p) {
#if defined(__CUDA_ARCH__)
    const uint4 v = __ldg(static_cast<const uint4*>(p));
#else
    const mx_aligned_u32x4 v = *static_cast<const mx_aligned_u32x4*>(p);
#endif
    return mx_u32x4{v.x, v.y, v.z, v.w};
}
__device__ inline moetune_u32 mx_load2_ldg(const moetune_u16* p) {
#if defined(__CUDA_ARCH__)
    return __ldg(p);
#else
    return *p;
#endif
}

// Asynchronous 16-byte copies from global to shared memory (cp.async, sm_80+): the copy needs no
// registers and no instructions beyond its issue, and lands while the thread does other work. With
// `load` false it reads nothing and writes 16 zero bytes. mx_cp_async_wait_all waits for this
// thread's copies; a barrier must follow before other threads read them (and, for warpgroup
// products, mx_fence_shared_for_async before it). Elsewhere the copy is an ordinary load and store.
__device__ inline void mx_cp_async16(unsigned char* shared, const void* global, bool load) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(unsigned(__cvta_generic_to_shared(shared))),
                 "l"(global), "r"(load ? 16 : 0)
                 : "memory");
#else
    mx_store16(shared, load ? mx_load16<false>(global) : mx_u32x4{0u, 0u, 0u, 0u});
#endif
}
// The same for 4 bytes from a 4-byte aligned address (cp.async.ca: the 16-byte form alone may skip L1).
__device__ inline void mx_cp_async4(unsigned char* shared, const void* global) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(unsigned(__cvta_generic_to_shared(shared))),
                 "l"(global)
                 : "memory");
#else
    *reinterpret_cast<moetune_u32*>(shared) = *static_cast<const moetune_u32*>(global);
#endif
}
__device__ inline void mx_cp_async_wait_all() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}
// Groups of copies: mx_cp_async_commit closes this thread's copies issued since the last one into a
// group; mx_cp_async_wait_group<N> waits until at most N of its groups are still in flight.
__device__ inline void mx_cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
template <int N>
__device__ inline void mx_cp_async_wait_group() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

// 8 bytes (two words) from an 8-byte aligned address, read-only cached path.
__device__ inline void mx_load8(const void* p, moetune_u32& lo, moetune_u32& hi) {
    const moetune_u32* q = static_cast<const moetune_u32*>(p);
#if defined(__CUDA_ARCH__)
    asm volatile("ld.global.nc.v2.u32 {%0,%1}, [%2];\n" : "=r"(lo), "=r"(hi) : "l"(q));
#else
    lo = q[0];
    hi = q[1];
#endif
}

// 4 bytes from a 4-byte aligned address, read-only cached path; unlike mx_load8 not volatile, so
// the compiler schedules these loads among the loop's arithmetic.
__device__ inline moetune_u32 mx_load4(const moetune_u32* p) {
#if defined(__CUDA_ARCH__)
    return __ldg(p);
#else
    return *p;
#endif
}

// Asks L2 to fetch the line holding p; a hint that nothing waits for (sm_80+; elsewhere nothing).
__device__ inline void mx_prefetch_l2(const void* p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("prefetch.global.L2 [%0];\n" ::"l"(p));
#else
    (void)p;
#endif
}

// Asks L2 to fetch `bytes` bytes from p (both multiples of 16) in one asynchronous bulk request that
// uses no registers and nothing waits for (sm_90+; elsewhere nothing: a hint).
__device__ inline void mx_prefetch_l2_bulk(const void* p, moetune_u32 bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;\n" ::"l"(p), "r"(bytes) : "memory");
#else
    (void)p, (void)bytes;
#endif
}

// out[0..1] += {x, y} as packed bf16 (one 32-bit word). Hopper has a native packed bf16 reduction;
// elsewhere a compare-and-swap loop on the word.
__device__ inline void mx_atomic_add_bf16x2(unsigned short* out, float x, float y) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const moetune_u32 packed = moetune_u32(mx_float_to_bf16(x)) | (moetune_u32(mx_float_to_bf16(y)) << 16);
    asm volatile("red.global.add.noftz.bf16x2 [%0], %1;\n" ::"l"(out), "r"(packed) : "memory");
#else
    moetune_u32* word = reinterpret_cast<moetune_u32*>(out);
    moetune_u32 old = *word, assumed;
    do {
        assumed = old;
        const float lo = mx_bf16_to_float((unsigned short)(assumed & 0xFFFFu)) + x;
        const float hi = mx_bf16_to_float((unsigned short)(assumed >> 16)) + y;
        const moetune_u32 next = moetune_u32(mx_float_to_bf16(lo)) | (moetune_u32(mx_float_to_bf16(hi)) << 16);
        old = atomicCAS(word, assumed, next);
    } while (old != assumed);
#endif
}

// out[0..7] += 8 packed bf16 (16-byte aligned): on Hopper one vector reduction where four pairs take
// four (a warp of stage 2's epilogue then covers 64 contiguous bytes of each of its 8 rows, not 16).
// Only the warpgroup-product kernels (sm_90a) call it; the fallback below adds the addends as the
// bf16 values they were packed as, which the Hopper reduction does too.
__device__ inline void mx_atomic_add_bf16x8(unsigned short* out, const moetune_u32 (&packed)[4]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("red.global.add.noftz.v4.bf16x2 [%0], {%1, %2, %3, %4};\n" ::"l"(out), "r"(packed[0]),
                 "r"(packed[1]), "r"(packed[2]), "r"(packed[3])
                 : "memory");
#else
#pragma unroll
    for (int i = 0; i < 4; ++i)
        mx_atomic_add_bf16x2(out + 2 * i, mx_bf16_to_float((unsigned short)(packed[i] & 0xFFFFu)),
                             mx_bf16_to_float((unsigned short)(packed[i] >> 16)));
#endif
}
