#pragma once
// Lane shuffles and votes within 32-lane groups (a 64-wide AMD wavefront holds two such groups).
// Every lane of the 32 must take part.
#include "host_device.h"

__device__ inline moetune_u32 mx_shfl(moetune_u32 v, int src_lane) {
#if defined(__CUDA_ARCH__)
    return __shfl_sync(0xFFFFFFFFu, v, src_lane, 32);
#else
    return __shfl(v, src_lane, 32);
#endif
}

__device__ inline moetune_u32 mx_shfl_xor(moetune_u32 v, int mask) {
#if defined(__CUDA_ARCH__)
    return __shfl_xor_sync(0xFFFFFFFFu, v, mask, 32);
#else
    return __shfl_xor(v, mask, 32);
#endif
}
__device__ inline float mx_shfl_xor(float v, int mask) { return mx_float_of(mx_shfl_xor(mx_bits_of(v), mask)); }

// The 4 x 4 words of a lane quad (the lanes 4 g .. 4 g + 3 of a product fragment, t = lane % 4)
// transposed: word q of lane t becomes word t of lane q. Two butterfly steps of two shuffles each:
// the quad's off-diagonal 2 x 2 blocks swap between lanes t and t ^ 2, then the words off each
// block's diagonal between lanes t and t ^ 1. Why: a fragment's row lies across the quad in 4-byte
// pieces (columns 8 j + 2 t), so a transposed lane holds 16 contiguous bytes (j = 4 jb + t) and
// stores or reduces them as one vector.
__device__ inline void mx_quad_transpose(moetune_u32 (&w)[4], int t) {
    const bool high = (t & 2) != 0;
    moetune_u32 a = high ? w[0] : w[2], b = high ? w[1] : w[3];
    a = mx_shfl_xor(a, 2);
    b = mx_shfl_xor(b, 2);
    if (high) {
        w[0] = a, w[1] = b;
    } else {
        w[2] = a, w[3] = b;
    }
    const bool odd = (t & 1) != 0;
    a = odd ? w[0] : w[1], b = odd ? w[2] : w[3];
    a = mx_shfl_xor(a, 1);
    b = mx_shfl_xor(b, 1);
    if (odd) {
        w[0] = a, w[2] = b;
    } else {
        w[1] = a, w[3] = b;
    }
}

// Bit i: whether lane i of this lane's 32-lane group holds `predicate`.
__device__ inline moetune_u32 mx_ballot(bool predicate) {
#if defined(__CUDA_ARCH__)
    return __ballot_sync(0xFFFFFFFFu, predicate);
#else
    return moetune_u32(__ballot(predicate) >> (__lane_id() & 32));
#endif
}
