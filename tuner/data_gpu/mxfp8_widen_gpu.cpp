#include "data_gpu/mxfp8_widen_gpu.h"

#include <stdexcept>

#include "data_gpu/launch_grid.h"
#include "formats/mx_quantize.h"

namespace moetune::data {

void enqueue_widen_mxfp8(const DataKernels& kernels, const uint8_t* values, const uint8_t* scales,
                         unsigned long long blocks, uint16_t* wide, const gpu::Stream& stream) {
    constexpr unsigned kThreads = kernel_names::kElementwiseThreads;
    kernels.kernel(kernel_names::kWiden)
        .launch({{grid_stride_blocks(blocks, kThreads)}, {kThreads}}, stream, values, scales, blocks, wide);
}

gpu::DeviceBuffer<uint16_t> widen_mxfp8_gpu(const DataKernels& kernels, const DeviceMxfpMatrix& m,
                                            const gpu::Stream& stream) {
    gpu::DeviceBuffer<uint16_t> wide(m.values.size());
    enqueue_widen_mxfp8(kernels, m.values.data(), m.scales.data(), m.values.size() / formats::kMxBlock, wide.data(),
                        stream);
    return wide;
}

gpu::DeviceBuffer<uint16_t> mxfp8_to_f16_rows_gpu(const DataKernels& kernels, const DeviceMxfpMatrix& m,
                                                  const gpu::Stream& stream) {
    constexpr unsigned kThreads = kernel_names::kElementwiseThreads;
    if (m.cols % 64 != 0) throw std::invalid_argument("f16 rows: cols must be a multiple of 64");
    gpu::DeviceBuffer<uint16_t> rows(m.values.size());
    const unsigned long long elements = m.values.size();
    kernels.kernel(kernel_names::kF16Rows)
        .launch({{grid_stride_blocks(elements, kThreads)}, {kThreads}}, stream, m.values.data(), elements,
                unsigned(m.cols), rows.data());
    return rows;
}

}  // namespace moetune::data
