#pragma once
// AITER moe_sorting on the GPU (kernel_templates/moe_sort.hip): the same result, entry for entry,
// as moe_sorting_cpu (data/moe_sorting.h), including the padding, the unused tail and
// num_valid_ids. It runs inside every timed MoE; with a moe_buf it also zeroes that buffer, as
// AITER's sort does for stage 2's atomic accumulation.
#include <cstddef>

#include "data/moe_problem.h"
#include "data_gpu/data_kernels.h"
#include "data_gpu/device_moe_data.h"
#include "gpu/stream.h"

namespace moetune::data {

// Routing in device memory someone else owns (a libmoetune caller's): [tokens, topk] expert ids
// and weights.
struct DeviceRoutingView {
    const int32_t* ids = nullptr;
    const float* weights = nullptr;
    int tokens = 0;
    int topk = 0;
};

// Buffers at AITER's full sizes for up to `tokens` tokens. Throws std::invalid_argument unless
// block_m > 0, 0 < topk < 256, 0 <= tokens < 2^24 and 0 < experts <= 2048 (the sort's shared memory).
DeviceSortedRouting allocate_sorted_routing(int tokens, int topk, int experts, int block_m);

// Enqueues the sort of `routing` into `out` (allocated by allocate_sorted_routing for the routing's
// topk and at least its tokens, so one allocation serves every smaller token count) on `stream`;
// capturable in a graph, allocates nothing. moe_buf: device memory of moe_buf_bytes to zero, or
// nullptr. Expert ids must lie in [0, experts) (validate_routing); others are dropped.
void moe_sorting_gpu(const DataKernels& kernels, const DeviceRoutingView& routing, DeviceSortedRouting& out,
                     const gpu::Stream& stream, void* moe_buf = nullptr, std::size_t moe_buf_bytes = 0);
void moe_sorting_gpu(const DataKernels& kernels, const DeviceRouting& routing, DeviceSortedRouting& out,
                     const gpu::Stream& stream, void* moe_buf = nullptr, std::size_t moe_buf_bytes = 0);

// Uploads, sorts and downloads: the GPU counterpart of moe_sorting_cpu, for tests.
SortedRouting moe_sorting_gpu(const DataKernels& kernels, const Routing& routing, int experts, int block_m);

}  // namespace moetune::data
