#include "data_gpu/mxfp8_quant_gpu.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string>

#include "data_gpu/launch_grid.h"

namespace moetune::data {
namespace {

using formats::ActivationScales;

template <class T>
void enqueue_quantize(const gpu::Kernel& kernel, const T* x, unsigned long long blocks, uint8_t* values,
                      uint8_t* scales, const gpu::Stream& stream) {
    constexpr unsigned kThreads = kernel_names::kElementwiseThreads;
    kernel.launch({{grid_stride_blocks(blocks, kThreads)}, {kThreads}}, stream, x, blocks, values, scales);
}

template <class T>
DeviceMxfpMatrix quantize(const DataKernels& kernels, const char* kernel, const gpu::DeviceBuffer<T>& x, int rows,
                          int cols, const gpu::Stream& stream) {
    if (rows < 0 || cols < 0 || cols % formats::kMxBlock != 0)
        throw std::invalid_argument("quantize_mxfp8_gpu: cols must be a non-negative multiple of 32, got " +
                                    std::to_string(cols));
    const unsigned long long elements = static_cast<unsigned long long>(rows) * cols;
    if (x.size() != elements)
        throw std::invalid_argument("quantize_mxfp8_gpu: input has " + std::to_string(x.size()) +
                                    " elements, expected [" + std::to_string(rows) + ", " + std::to_string(cols) + "]");
    DeviceMxfpMatrix m;
    m.rows = rows;
    m.cols = cols;
    m.values = gpu::DeviceBuffer<uint8_t>(elements);
    m.scales = gpu::DeviceBuffer<uint8_t>(elements / formats::kMxBlock);
    enqueue_quantize(kernels.kernel(kernel), x.data(), elements / formats::kMxBlock, m.values.data(), m.scales.data(),
                     stream);
    return m;
}

const char* float_kernel(ActivationScales mode, Bf16Rounding rounding) {
    using namespace kernel_names;
    const bool unit = mode == ActivationScales::unit;
    if (rounding == Bf16Rounding::to_bf16_first) return unit ? kQuantF32Bf16Unit : kQuantF32Bf16;
    return unit ? kQuantF32Unit : kQuantF32;
}

}  // namespace

DeviceMxfpMatrix quantize_mxfp8_gpu(const DataKernels& kernels, const gpu::DeviceBuffer<float>& x, int rows, int cols,
                                    ActivationScales mode, Bf16Rounding rounding, const gpu::Stream& stream) {
    return quantize(kernels, float_kernel(mode, rounding), x, rows, cols, stream);
}

DeviceMxfpMatrix quantize_mxfp8_gpu(const DataKernels& kernels, const gpu::DeviceBuffer<uint16_t>& x, int rows,
                                    int cols, ActivationScales mode, const gpu::Stream& stream) {
    using namespace kernel_names;
    return quantize(kernels, mode == ActivationScales::unit ? kQuantBf16Unit : kQuantBf16, x, rows, cols, stream);
}

void enqueue_quantize_mxfp8_bf16(const DataKernels& kernels, const uint16_t* x, unsigned long long blocks,
                                 uint8_t* values, uint8_t* scales, const gpu::Stream& stream, bool interleave_words) {
    using namespace kernel_names;
    enqueue_quantize(kernels.kernel(interleave_words ? kQuantBf16Interleaved : kQuantBf16), x, blocks, values, scales,
                     stream);
}

void enqueue_quantize_mxfp8_bf16_wide(const DataKernels& kernels, const uint16_t* x, unsigned long long blocks,
                                      uint16_t* wide, const gpu::Stream& stream) {
    constexpr unsigned kThreads = kernel_names::kElementwiseThreads;
    kernels.kernel(kernel_names::kQuantBf16Wide)
        .launch({{grid_stride_blocks(4 * blocks, kThreads)}, {kThreads}}, stream, x, blocks, wide);  // 4 lanes a block
}

void enqueue_quantize_mxfp8_bf16_rebased(const DataKernels& kernels, const uint16_t* x, int rows, int cols,
                                         uint8_t* rebased, uint8_t* bases, const gpu::Stream& stream,
                                         bool interleave_words) {
    using namespace kernel_names;
    if (rows < 0 || cols <= 0 || cols % 32 != 0 || cols > kQuantizeRebasedMaxCols)
        throw std::invalid_argument("quantisation to rebased rows: " + std::to_string(cols) +
                                    " columns (a positive multiple of 32, at most " +
                                    std::to_string(kQuantizeRebasedMaxCols) + ")");
    const int groups = cols / 8;  // 8 elements a lane, 4 lanes a block
    if (rows == 0) return;
    // Two groups a lane past 512 groups (4096 columns), as few whole warps as then hold the row:
    // each lane keeps two loads in flight (at 5120 columns 320 threads a row, the kernel 35.2 ->
    // 29.5 us at 4096 tokens on the H200, docs/kernel-design.md session 33), within the kernels there
    // are (one group a lane up to 4096 columns).
    constexpr int kPerLaneMax = static_cast<int>(std::size(kQuantBf16Rebased));
    const int per_lane = std::min(kPerLaneMax, (groups + kQuantRebasedTwoGroups - 1) / kQuantRebasedTwoGroups);
    const unsigned threads = unsigned((groups + per_lane - 1) / per_lane + 31) / 32 * 32;
    kernels.kernel(kQuantBf16Rebased[per_lane - 1][interleave_words ? 1 : 0])
        .launch({{unsigned(rows)}, {threads}}, stream, x, rows, cols, rebased, bases);  // a workgroup a row
}

MxfpMatrix quantize_mxfp8_gpu(const DataKernels& kernels, std::span<const float> x, int rows, int cols,
                              ActivationScales mode, Bf16Rounding rounding) {
    const gpu::DeviceBuffer<float> input(x);
    const gpu::Stream stream;
    const DeviceMxfpMatrix m = quantize_mxfp8_gpu(kernels, input, rows, cols, mode, rounding, stream);
    stream.synchronize();
    return download(m);
}

MxfpMatrix quantize_mxfp8_gpu(const DataKernels& kernels, std::span<const uint16_t> x, int rows, int cols,
                              ActivationScales mode) {
    const gpu::DeviceBuffer<uint16_t> input(x);
    const gpu::Stream stream;
    const DeviceMxfpMatrix m = quantize_mxfp8_gpu(kernels, input, rows, cols, mode, stream);
    stream.synchronize();
    return download(m);
}

}  // namespace moetune::data
