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

// One butterfly step of mx_quad_transpose: lanes t and t ^ mask swap a pair of words -- the lane
// whose `mask` bit is set gives (lo0, lo1) and takes its partner's (hi0, hi1) in their place, the
// other lane the reverse.
__device__ inline void mx_swap_word_pair(moetune_u32& lo0, moetune_u32& lo1, moetune_u32& hi0, moetune_u32& hi1, int t,
                                         int mask) {
    const bool upper = (t & mask) != 0;
    moetune_u32 a = upper ? lo0 : hi0, b = upper ? lo1 : hi1;
    a = mx_shfl_xor(a, mask);
    b = mx_shfl_xor(b, mask);
    if (upper) {
        lo0 = a, lo1 = b;
    } else {
        hi0 = a, hi1 = b;
    }
}

// The 4 x 4 words of a lane quad (the lanes 4 g .. 4 g + 3 of a product fragment, t = lane % 4)
// transposed: word q of lane t becomes word t of lane q. Two butterfly steps of two shuffles each:
// the quad's off-diagonal 2 x 2 blocks swap between lanes t and t ^ 2, then the words off each
// block's diagonal between lanes t and t ^ 1. Why: a fragment's row lies across the quad in 4-byte
// pieces (columns 8 j + 2 t), so a transposed lane holds 16 contiguous bytes (j = 4 jb + t) and
// stores or reduces them as one vector.
__device__ inline void mx_quad_transpose(moetune_u32 (&w)[4], int t) {
    mx_swap_word_pair(w[0], w[1], w[2], w[3], t, 2);  // the off-diagonal 2 x 2 blocks
    mx_swap_word_pair(w[0], w[2], w[1], w[3], t, 1);  // each block's off-diagonal words
}

// Bit i: whether lane i of this lane's 32-lane group holds `predicate`.
__device__ inline moetune_u32 mx_ballot(bool predicate) {
#if defined(__CUDA_ARCH__)
    return __ballot_sync(0xFFFFFFFFu, predicate);
#else
    return moetune_u32(__ballot(predicate) >> (__lane_id() & 32));
#endif
}
