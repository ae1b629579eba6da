#pragma once
// A stage tile's rows and expert found in the routing itself, at a few tokens: what moe_sorting
// places there (routed_placement.h), worked out by the tile's own workgroup from the M x topk
// expert ids, a thread an entry. Why: the register-fed stage-1 kernels then read nothing of the sort
// and can load their expert's weights before the kernel they follow has finished, and the sort is off
// the MoE's critical path (the library, runtime/fused_moe.cpp; docs/kernel-design.md, "Routed rows").
// Ids outside [0, experts) are dropped, as the sort drops them.
#include "host_device.h"
#include "moe_args.h"  // kMxRoutedEntriesMax
#include "routed_placement.h"

// Every thread of the workgroup calls it, blockDim.x >= entries (<= kMxRoutedEntriesMax). The ROWS
// sorted rows from `first_row` (within one sort block of SORT_BLOCK rows): pad(r) for each of them
// first, then place(r, i) for each one that entry i lands on (by entry i's thread). Returns their
// expert, or -1 where none of them holds an entry (past the sorted rows, or the padded half of a
// sort block of two tiles).
template <int SORT_BLOCK, int ROWS, class Pad, class Place>
__device__ inline int mx_routed_rows(const int* __restrict__ topk_ids, int entries, int experts, int first_row, Pad pad,
                                     Place place) {
    __shared__ int ids[kMxRoutedEntriesMax];
    __shared__ int segment_at_first[kMxRoutedEntriesMax];  // (mx_routed_start)
    __shared__ int rows_expert;
    const int i = int(threadIdx.x);
    if (i < entries) {
        const int e = topk_ids[i];
        ids[i] = e >= 0 && e < experts ? e : -1;
    }
    for (int r = i; r < ROWS; r += int(blockDim.x)) pad(r);
    if (i == 0) rows_expert = -1;
    __syncthreads();
    const int e = i < entries ? ids[i] : -1;
    int count = 0, rank = 0;
    if (i < entries) {
        mx_routed_count_rank(ids, entries, i, count, rank);
        segment_at_first[i] = e >= 0 && rank == 0 ? mx_routed_segment(count, SORT_BLOCK) : 0;
    }
    __syncthreads();
    const int start = mx_routed_start(ids, segment_at_first, entries, e);
    const int r = start + rank - first_row;
    if (e >= 0 && r >= 0 && r < ROWS) {
        place(r, i);
        rows_expert = e;  // (a sort block holds one expert's entries)
    }
    __syncthreads();
    return rows_expert;
}
