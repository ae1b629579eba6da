#pragma once
// The MoE data of data/moe_problem.h held in device memory, and the host round trips used to set
// it up and to check it. Layouts are exactly the host ones (logical, row-major).
#include <cstdint>

#include "data/moe_problem.h"
#include "gpu/device_buffer.h"

namespace moetune::data {

struct DeviceRouting {
    int tokens = 0;
    int topk = 0;
    gpu::DeviceBuffer<int32_t> ids;  // [tokens, topk]
    gpu::DeviceBuffer<float> weights;
};

// A moe_sorting result on the device, allocated at AITER's full sizes for (tokens, topk, experts,
// block_m), plus the sort kernels' scratch, so a captured graph can re-sort into it every replay.
struct DeviceSortedRouting {
    int tokens = 0;  // allocated for: the most tokens it can sort
    int topk = 0;
    int experts = 0;
    int block_m = 0;
    gpu::DeviceBuffer<int32_t> sorted_token_ids;   // max_num_tokens_padded
    gpu::DeviceBuffer<float> sorted_weights;       // max_num_tokens_padded
    gpu::DeviceBuffer<int32_t> sorted_expert_ids;  // max_num_m_blocks
    gpu::DeviceBuffer<int32_t> num_valid_ids;      // 2
    gpu::DeviceBuffer<int32_t> chunk_counts;       // scratch: per-chunk expert histograms
};

// MXFP8 matrix (e4m3fn values, e8m0 scales per 1x32).
struct DeviceMxfpMatrix {
    int rows = 0;
    int cols = 0;
    gpu::DeviceBuffer<uint8_t> values;  // rows*cols
    gpu::DeviceBuffer<uint8_t> scales;  // rows*cols/32
};

struct DeviceMoeWeights {
    gpu::DeviceBuffer<uint8_t> w1, w1_scale, w2, w2_scale;
};

DeviceRouting upload(const Routing& routing);
DeviceMxfpMatrix upload(const MxfpMatrix& matrix);
DeviceMoeWeights upload(const MoeWeights& weights);

SortedRouting download(const DeviceSortedRouting& sorted);
MxfpMatrix download(const DeviceMxfpMatrix& matrix);
MoeWeights download(const DeviceMoeWeights& weights);

}  // namespace moetune::data
