#include "runtime/workspace.h"

#include "data_gpu/moe_sorting_gpu.h"
#include "kernels/kernel_config.h"

namespace moetune::runtime {

Workspace::Workspace(const data::MoeShape& s, const WorkspaceNeeds& needs) : tokens(s.tokens) {
    const std::size_t activations = std::size_t(s.tokens) * s.model_dim;
    const std::size_t routed_rows = std::size_t(s.tokens) * s.topk;
    const std::size_t intermediate = routed_rows * s.inter_dim;
    if (needs.act_mxfp8) {
        act = gpu::DeviceBuffer<uint8_t>(activations);
        act_scale = gpu::DeviceBuffer<uint8_t>(activations / kernels::kMxBlock);
    }
    if (needs.act_wide) act_wide = gpu::DeviceBuffer<uint16_t>(activations);
    if (needs.stage1_wide) stage1_wide = gpu::DeviceBuffer<uint16_t>(intermediate);
    if (needs.stage1_bf16) stage1_bf16 = gpu::DeviceBuffer<uint16_t>(intermediate);
    if (needs.stage1_mxfp8) {
        stage1_out = gpu::DeviceBuffer<uint8_t>(intermediate);
        stage1_out_scale = gpu::DeviceBuffer<uint8_t>(intermediate / kernels::kMxBlock);
    }
    if (needs.act_rebased) {
        act_rebased = gpu::DeviceBuffer<uint8_t>(activations);
        act_base = gpu::DeviceBuffer<uint8_t>(std::size_t(s.tokens));
    }
    if (needs.stage1_rebased) {
        stage1_rebased = gpu::DeviceBuffer<uint8_t>(intermediate);
        stage1_base = gpu::DeviceBuffer<uint8_t>(routed_rows);
    }
    if (needs.partials) partials = gpu::DeviceBuffer<uint16_t>(routed_rows * s.model_dim);
    for (int block_m : needs.block_ms)
        sorted.emplace(block_m, data::allocate_sorted_routing(s.tokens, s.topk, s.experts, block_m));
}

}  // namespace moetune::runtime
