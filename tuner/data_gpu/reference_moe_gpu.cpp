#include "data_gpu/reference_moe_gpu.h"

#include <stdexcept>
#include <string>

#include "common/grid_limits.h"
#include "data_gpu/launch_grid.h"
#include "data_gpu/moe_sorting_gpu.h"
#include "formats/mx_quantize.h"

namespace moetune::data {
namespace {

void require(bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument("reference MoE (GPU): " + what);
}

void check_inputs(const MoeShape& s, const DeviceMxfpMatrix& a, int a_rows, int a_cols, const DeviceMoeWeights& w,
                  const DeviceRouting& r) {
    require(s.tokens >= 0 && s.model_dim > 0 && s.inter_dim > 0 && s.experts > 0 && s.topk > 0,
            "shape dimensions must be positive");
    require(s.model_dim % formats::kMxBlock == 0 && s.inter_dim % formats::kMxBlock == 0,
            "model_dim and inter_dim must be multiples of 32");
    const std::size_t e = s.experts, model = s.model_dim, inter = s.inter_dim;
    require(w.w1.size() == e * 2 * inter * model / 2 && w.w1_scale.size() == e * 2 * inter * model / 32,
            "w1 does not match the shape");
    require(w.w2.size() == e * model * inter / 2 && w.w2_scale.size() == e * model * inter / 32,
            "w2 does not match the shape");
    require(r.tokens == s.tokens && r.topk == s.topk, "routing does not match the shape");
    require(a.rows == a_rows && a.cols == a_cols && a.values.size() == std::size_t(a_rows) * a_cols &&
                a.scales.size() == std::size_t(a_rows) * (a_cols / formats::kMxBlock),
            "activation is not an MXFP8 [" + std::to_string(a_rows) + ", " + std::to_string(a_cols) + "] matrix");
}

// c[token*topk + slot][n] = sum_k a[row][k] * b[expert][n][k] for every routed row; see
// mx_grouped_gemm. `sorted` must use block_m == kGemmTileM.
void grouped_gemm(const DataKernels& kernels, const DeviceSortedRouting& sorted, const DeviceMxfpMatrix& a,
                  bool a_row_is_routed_row, const gpu::DeviceBuffer<uint8_t>& b,
                  const gpu::DeviceBuffer<uint8_t>& b_scale, int n_dim, int k_dim, gpu::DeviceBuffer<float>& c,
                  const gpu::Stream& stream) {
    using namespace kernel_names;
    const long long m_blocks = max_num_m_blocks(sorted.tokens, sorted.topk, sorted.experts, sorted.block_m);
    require(m_blocks <= kMaxGridY, "too many routed rows for one launch (" + std::to_string(m_blocks) + " row tiles)");
    const gpu::Dim3 grid{static_cast<unsigned>((n_dim + kGemmTileN - 1) / kGemmTileN), static_cast<unsigned>(m_blocks)};
    const int routed = a_row_is_routed_row ? 1 : 0;
    kernels.kernel(kGroupedGemm)
        .launch({grid, {kGemmThreads}}, stream, a.values.data(), a.scales.data(), b.data(), b_scale.data(), n_dim,
                k_dim, sorted.topk, routed, sorted.sorted_token_ids.data(), sorted.sorted_expert_ids.data(),
                sorted.num_valid_ids.data(), c.data());
}

DeviceSortedRouting sort_for_gemm(const DataKernels& kernels, const MoeShape& s, const DeviceRouting& routing,
                                  const gpu::Stream& stream) {
    DeviceSortedRouting sorted = allocate_sorted_routing(s.tokens, s.topk, s.experts, kernel_names::kGemmTileM);
    moe_sorting_gpu(kernels, routing, sorted, stream);
    return sorted;
}

}  // namespace

gpu::DeviceBuffer<float> reference_stage1_gpu(const DataKernels& kernels, const MoeShape& shape,
                                              const DeviceMxfpMatrix& act, const DeviceMoeWeights& weights,
                                              const DeviceRouting& routing, const gpu::Stream& stream) {
    using namespace kernel_names;
    check_inputs(shape, act, shape.tokens, shape.model_dim, weights, routing);
    const unsigned long long rows = static_cast<unsigned long long>(shape.tokens) * shape.topk;
    const DeviceSortedRouting sorted = sort_for_gemm(kernels, shape, routing, stream);
    gpu::DeviceBuffer<float> gate_up(rows * 2 * shape.inter_dim);
    grouped_gemm(kernels, sorted, act, false, weights.w1, weights.w1_scale, 2 * shape.inter_dim, shape.model_dim,
                 gate_up, stream);
    gpu::DeviceBuffer<float> out(rows * shape.inter_dim);
    kernels.kernel(kSiluMul).launch(
        {{grid_stride_blocks(rows * shape.inter_dim, kElementwiseThreads)}, {kElementwiseThreads}}, stream,
        gate_up.data(), rows, shape.inter_dim, out.data());
    stream.synchronize();
    return out;
}

gpu::DeviceBuffer<float> reference_stage2_rows_gpu(const DataKernels& kernels, const MoeShape& shape,
                                                   const DeviceMxfpMatrix& inter_act, const DeviceMoeWeights& weights,
                                                   const DeviceRouting& routing, const gpu::Stream& stream) {
    check_inputs(shape, inter_act, shape.tokens * shape.topk, shape.inter_dim, weights, routing);
    const unsigned long long rows = static_cast<unsigned long long>(shape.tokens) * shape.topk;
    const DeviceSortedRouting sorted = sort_for_gemm(kernels, shape, routing, stream);
    gpu::DeviceBuffer<float> out(rows * shape.model_dim);
    grouped_gemm(kernels, sorted, inter_act, true, weights.w2, weights.w2_scale, shape.model_dim, shape.inter_dim, out,
                 stream);
    stream.synchronize();
    return out;
}

gpu::DeviceBuffer<float> reference_stage2_gpu(const DataKernels& kernels, const MoeShape& shape,
                                              const DeviceMxfpMatrix& inter_act, const DeviceMoeWeights& weights,
                                              const DeviceRouting& routing, const gpu::Stream& stream) {
    using namespace kernel_names;
    const gpu::DeviceBuffer<float> rows =
        reference_stage2_rows_gpu(kernels, shape, inter_act, weights, routing, stream);
    const unsigned long long count = static_cast<unsigned long long>(shape.tokens) * shape.model_dim;
    gpu::DeviceBuffer<float> out(count);
    kernels.kernel(kWeightedTopkSum)
        .launch({{grid_stride_blocks(count, kElementwiseThreads)}, {kElementwiseThreads}}, stream, rows.data(),
                routing.weights.data(), shape.tokens, shape.topk, shape.model_dim, out.data());
    stream.synchronize();
    return out;
}

}  // namespace moetune::data
