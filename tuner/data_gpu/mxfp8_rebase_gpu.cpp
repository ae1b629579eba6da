#include "data_gpu/mxfp8_rebase_gpu.h"

#include "data_gpu/launch_grid.h"

namespace moetune::data {

void enqueue_rebase_mxfp8(const DataKernels& kernels, const uint8_t* values, const uint8_t* scales, int rows, int cols,
                          uint8_t* rebased, uint8_t* bases, const gpu::Stream& stream, bool interleave_words) {
    constexpr unsigned kThreads = kernel_names::kElementwiseThreads;
    kernels.kernel(interleave_words ? kernel_names::kRebaseInterleaved : kernel_names::kRebase)
        .launch({{grid_stride_blocks(std::uint64_t(rows) * 32, kThreads)  /* a warp a row */}, {kThreads}}, stream, values, scales, rows,
                cols, rebased, bases);
}

DeviceRebasedMatrix rebase_mxfp8_gpu(const DataKernels& kernels, const DeviceMxfpMatrix& m, const gpu::Stream& stream,
                                     bool interleave_words) {
    DeviceRebasedMatrix r{.rows = m.rows,
                          .cols = m.cols,
                          .values = gpu::DeviceBuffer<uint8_t>(m.values.size()),
                          .bases = gpu::DeviceBuffer<uint8_t>(std::size_t(m.rows))};
    enqueue_rebase_mxfp8(kernels, m.values.data(), m.scales.data(), m.rows, m.cols, r.values.data(), r.bases.data(),
                         stream, interleave_words);
    return r;
}

}  // namespace moetune::data
