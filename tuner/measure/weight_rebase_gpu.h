#pragma once
// Expert weights in the kernel layout -> rebased rows (kernel_templates/weight_rebase.hip,
// common/mx_rebase.h), what the FP8 warpgroup-product kernels read (kernels::reads_rebased_activations):
// e4m3 [rows, K] and one e8m0 base per row, rows = experts * N in the kernel layout's order.
// Byte for byte formats::rebase_coded_weights.
#include <cstdint>

#include "gpu/device_buffer.h"
#include "gpu/stream.h"
#include "measure/harness_kernels.h"

namespace moetune::measure {

struct DeviceRebasedWeights {
    gpu::DeviceBuffer<uint8_t> w1, w1_base, w2, w2_base;
};

// One tensor between buffers the caller owns: coded rows*K/2 bytes and scales rows*K/32 in, rebased
// rows*K and bases rows out. Enqueued on `stream`, allocates nothing.
void rebase_weights_gpu(const HarnessKernels& kernels, const uint8_t* coded, const uint8_t* scales, long long rows,
                        int K, uint8_t* rebased, uint8_t* bases, const gpu::Stream& stream);

}  // namespace moetune::measure
