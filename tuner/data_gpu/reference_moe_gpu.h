#pragma once
// The reference MoE on the GPU (kernel_templates/reference_moe.hip), for tuning-size shapes where
// the CPU reference (data/reference_moe.h) would take minutes: same definitions, same outputs, equal
// to the CPU's within FP32 rounding (the summation order differs). Deterministic from run to run.
// Each call sorts the routing itself (block_m 64, the GEMM's tile) and returns when the result is
// complete, since it frees its intermediates.
#include "data/moe_problem.h"
#include "data_gpu/data_kernels.h"
#include "data_gpu/device_moe_data.h"
#include "gpu/stream.h"

namespace moetune::data {

// reference_stage1: [M*topk, inter], row t*topk+s = SiLU(gate) * up. act: MXFP8 [M, model_dim].
gpu::DeviceBuffer<float> reference_stage1_gpu(const DataKernels& kernels, const MoeShape& shape,
                                              const DeviceMxfpMatrix& act, const DeviceMoeWeights& weights,
                                              const DeviceRouting& routing, const gpu::Stream& stream);

// reference_stage2_rows: [M*topk, model_dim], unweighted. inter_act: MXFP8 [M*topk, inter].
gpu::DeviceBuffer<float> reference_stage2_rows_gpu(const DataKernels& kernels, const MoeShape& shape,
                                                   const DeviceMxfpMatrix& inter_act, const DeviceMoeWeights& weights,
                                                   const DeviceRouting& routing, const gpu::Stream& stream);

// reference_stage2: [M, model_dim], the routing-weighted sum over slots 0..topk-1 in that order.
gpu::DeviceBuffer<float> reference_stage2_gpu(const DataKernels& kernels, const MoeShape& shape,
                                              const DeviceMxfpMatrix& inter_act, const DeviceMoeWeights& weights,
                                              const DeviceRouting& routing, const gpu::Stream& stream);

}  // namespace moetune::data
