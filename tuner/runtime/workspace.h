#pragma once
// The device memory FusedMoe::run works in, sized once for up to `tokens` tokens so that run()
// allocates nothing and can be captured in a graph: the activations as MXFP8 and/or in the wide
// layout (and rebased), stage 1's outputs in the form(s) stage 2 reads, stage 2's per-slot partials and one
// moe_sorting result per block_m the plans use. Only what some plan reads is allocated (at 4096
// tokens the MXFP8 activations and stage-1 output are 21 + 47 MB that wide-reading plans never touch).
#include <cstdint>
#include <map>
#include <set>

#include "data/moe_problem.h"
#include "data_gpu/device_moe_data.h"
#include "gpu/device_buffer.h"

namespace moetune::runtime {

struct WorkspaceNeeds {
    bool stage1_bf16 = false;   // a plan's stage 1 writes bf16 (not _fp8), quantised separately
    bool partials = false;      // a plan's stage 2 is in reduce mode
    bool act_mxfp8 = false;     // a plan's stage 1 reads MXFP8 values and scales
    bool act_wide = false;      // a plan's stage 1 reads the wide layout (kernels::reads_wide_activations)
    bool stage1_mxfp8 = false;  // a plan's stage 2 reads MXFP8
    bool stage1_wide = false;   // a plan's stage 2 reads the wide layout
    bool act_rebased = false;     // a plan's stage 1 reads rebased rows (kernels::reads_rebased_rows)
    bool stage1_rebased = false;  // a plan's stage 2 reads rebased rows
    std::set<int> block_ms;     // the sort blocks of the plans
};

struct Workspace {
    // shape.tokens: the most tokens a run may have.
    Workspace(const data::MoeShape& shape, const WorkspaceNeeds& needs);

    int tokens = 0;
    gpu::DeviceBuffer<uint8_t> act, act_scale;                // MXFP8 [M, model_dim], if needed
    gpu::DeviceBuffer<uint16_t> act_wide;                     // the same widened, if needed
    gpu::DeviceBuffer<uint16_t> stage1_bf16;                  // [M*topk, inter], if needed
    gpu::DeviceBuffer<uint8_t> stage1_out, stage1_out_scale;  // MXFP8 [M*topk, inter], if needed
    gpu::DeviceBuffer<uint16_t> stage1_wide;                  // wide [M*topk, inter], if needed
    gpu::DeviceBuffer<uint16_t> partials;                     // [M*topk, model_dim], if needed
    gpu::DeviceBuffer<uint8_t> act_rebased, act_base;         // rebased [M, model_dim] and [M], if needed
    gpu::DeviceBuffer<uint8_t> stage1_rebased, stage1_base;   // rebased [M*topk, inter] and [M*topk], if needed
    std::map<int, data::DeviceSortedRouting> sorted;          // by block_m
};

}  // namespace moetune::runtime
