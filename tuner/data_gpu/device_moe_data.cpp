#include "data_gpu/device_moe_data.h"

namespace moetune::data {

DeviceRouting upload(const Routing& routing) {
    DeviceRouting d;
    d.tokens = routing.tokens;
    d.topk = routing.topk;
    d.ids = gpu::DeviceBuffer<int32_t>(std::span<const int32_t>(routing.ids));
    d.weights = gpu::DeviceBuffer<float>(std::span<const float>(routing.weights));
    return d;
}

DeviceMxfpMatrix upload(const MxfpMatrix& matrix) {
    DeviceMxfpMatrix d;
    d.rows = matrix.rows;
    d.cols = matrix.cols;
    d.values = gpu::DeviceBuffer<uint8_t>(std::span<const uint8_t>(matrix.values));
    d.scales = gpu::DeviceBuffer<uint8_t>(std::span<const uint8_t>(matrix.scales));
    return d;
}

DeviceMoeWeights upload(const MoeWeights& weights) {
    DeviceMoeWeights d;
    d.w1 = gpu::DeviceBuffer<uint8_t>(std::span<const uint8_t>(weights.w1));
    d.w1_scale = gpu::DeviceBuffer<uint8_t>(std::span<const uint8_t>(weights.w1_scale));
    d.w2 = gpu::DeviceBuffer<uint8_t>(std::span<const uint8_t>(weights.w2));
    d.w2_scale = gpu::DeviceBuffer<uint8_t>(std::span<const uint8_t>(weights.w2_scale));
    return d;
}

SortedRouting download(const DeviceSortedRouting& sorted) {
    SortedRouting s;
    s.block_m = sorted.block_m;
    s.sorted_token_ids = sorted.sorted_token_ids.download();
    s.sorted_weights = sorted.sorted_weights.download();
    s.sorted_expert_ids = sorted.sorted_expert_ids.download();
    const std::vector<int32_t> valid = sorted.num_valid_ids.download();
    s.num_valid_ids[0] = valid.at(0);
    s.num_valid_ids[1] = valid.at(1);
    return s;
}

MxfpMatrix download(const DeviceMxfpMatrix& matrix) {
    MxfpMatrix m;
    m.rows = matrix.rows;
    m.cols = matrix.cols;
    m.values = matrix.values.download();
    m.scales = matrix.scales.download();
    return m;
}

MoeWeights download(const DeviceMoeWeights& weights) {
    return MoeWeights{weights.w1.download(), weights.w1_scale.download(), weights.w2.download(),
                      weights.w2_scale.download()};
}

}  // namespace moetune::data
