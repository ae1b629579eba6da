#pragma once
// The base of a rebased row (mx_rebase.h): the largest of its e8m0 block scales, found by one
// 32-lane group. Shared by the activation (mxfp8_rebase.hip) and weight (weight_rebase.hip)
// rebase kernels so both pick bases by the same rule.
#include "lane_shuffle.h"

// Every lane of the group calls it with the same row; every lane gets the maximum.
__device__ inline unsigned mx_rebase_base(const unsigned char* __restrict__ row_scales, int count, int lane) {
    moetune_u32 top = 0;
    for (int b = lane; b < count; b += 32) top = max(top, moetune_u32(row_scales[b]));
    for (int d = 16; d > 0; d /= 2) top = max(top, mx_shfl(top, lane ^ d));
    return top;
}
