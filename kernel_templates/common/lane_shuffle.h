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

__device__ inline float mx_shfl_xor(float v, int mask) {
#if defined(__CUDA_ARCH__)
    return __shfl_xor_sync(0xFFFFFFFFu, v, mask, 32);
#else
    return __shfl_xor(v, mask, 32);
#endif
}

// Bit i: whether lane i of this lane's 32-lane group holds `predicate`.
__device__ inline moetune_u32 mx_ballot(bool predicate) {
#if defined(__CUDA_ARCH__)
    return __ballot_sync(0xFFFFFFFFu, predicate);
#else
    return moetune_u32(__ballot(predicate) >> (__lane_id() & 32));
#endif
}
