#pragma once
// What lets one header be compiled by the host C++ compiler, by nvcc/NVRTC and by hipcc/hipRTC:
// the per-element MX math (mx_types.h, synthetic.h) is shared by the CPU reference and the GPU
// kernels, so both produce the same bits. Under NVRTC/hipRTC no standard library header is
// available, hence the builtin-typed aliases below instead of <cstdint>.

#if defined(__CUDACC__) || defined(__HIPCC__) || defined(__HIP_DEVICE_COMPILE__) || defined(__CUDACC_RTC__) || \
    defined(__HIPCC_RTC__)
#define MOETUNE_HD __host__ __device__ inline
#else
#define MOETUNE_HD inline
#endif

// True in the device pass of nvcc/NVRTC/hipcc/hipRTC: device intrinsics are usable there.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define MOETUNE_DEVICE_PASS 1
#else
#define MOETUNE_DEVICE_PASS 0
#endif

typedef unsigned char moetune_u8;
typedef unsigned short moetune_u16;
typedef unsigned int moetune_u32;
typedef unsigned long long moetune_u64;
typedef int moetune_i32;

#if !MOETUNE_DEVICE_PASS && !defined(__CUDACC_RTC__) && !defined(__HIPCC_RTC__)
static_assert(sizeof(moetune_u16) == 2 && sizeof(moetune_u32) == 4 && sizeof(moetune_u64) == 8,
              "the MX bit manipulation assumes 16/32/64-bit unsigned short/int/long long");
#endif

// Bit casts between float and its IEEE-754 bits. The host path uses __builtin_memcpy (gcc, clang
// and the nvcc host pass all have it) so that no header is needed.
MOETUNE_HD moetune_u32 mx_bits_of(float x) {
#if MOETUNE_DEVICE_PASS
    return __float_as_uint(x);
#else
    moetune_u32 u;
    __builtin_memcpy(&u, &x, sizeof u);
    return u;
#endif
}

MOETUNE_HD float mx_float_of(moetune_u32 u) {
#if MOETUNE_DEVICE_PASS
    return __uint_as_float(u);
#else
    float x;
    __builtin_memcpy(&x, &u, sizeof x);
    return x;
#endif
}

// CUDA's __byte_perm (PTX prmt.b32): byte n of the result is byte (selector nibble n & 7) of the
// 8-byte value {a = bytes 0..3, b = bytes 4..7}. One instruction on NVIDIA; elsewhere (host, AMD)
// the same function spelled out.
MOETUNE_HD moetune_u32 mx_byte_perm(moetune_u32 a, moetune_u32 b, moetune_u32 selector) {
#if defined(__CUDA_ARCH__)
    return __byte_perm(a, b, selector);
#else
    const moetune_u64 bytes = (moetune_u64(b) << 32) | a;
    moetune_u32 out = 0;
    for (int n = 0; n < 4; ++n) out |= moetune_u32(bytes >> (8 * ((selector >> (4 * n)) & 7u)) & 0xFFu) << (8 * n);
    return out;
#endif
}

// Byte n of the result is 0xFF when the sign bit (bit 7) of byte (selector nibble n & 7) of {a, b}
// is set, else 0: prmt.b32's sign mode, which __byte_perm does not expose (it masks the selector to
// 3 bits), hence inline PTX on NVIDIA.
MOETUNE_HD moetune_u32 mx_byte_signs(moetune_u32 a, moetune_u32 b, moetune_u32 selector) {
#if defined(__CUDA_ARCH__)
    moetune_u32 d;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(selector | 0x8888u));
    return d;
#else
    const moetune_u32 bytes = mx_byte_perm(a, b, selector);
    moetune_u32 out = 0;
    for (int n = 0; n < 4; ++n) out |= ((bytes >> (8 * n + 7)) & 1u) * (0xFFu << (8 * n));
    return out;
#endif
}

// __launch_bounds__ with at least `workgroups` resident per SM (the stage kernels' _occ{n}).
// NVIDIA's second argument counts workgroups (ptxas then fits the registers to 64K / (n * threads)
// and spills the rest); AMD's counts waves per SIMD: n workgroups of threads / 64 waves over a
// CU's 4 SIMDs.
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define MX_LAUNCH_BOUNDS_MIN(threads, workgroups) __launch_bounds__(threads, workgroups)
#else
#define MX_LAUNCH_BOUNDS_MIN(threads, workgroups) __launch_bounds__(threads, ((workgroups) * (threads) + 255) / 256)
#endif
