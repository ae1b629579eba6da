#include "data_gpu_fixture.h"

#include "data_gpu/synthetic_inputs_gpu.h"
#include "gpu/stream.h"

namespace moetune::test {

const data::DataKernels& data_kernels() {
    static const data::DataKernels kernels(nullptr);
    return kernels;
}

data::MoeShape dsv41_flash(int tokens) { return {tokens, 5120, 2304, 96, 5}; }

const data::DeviceMoeWeights& dsv41_device_weights() {
    static const data::DeviceMoeWeights weights = [] {
        const gpu::Stream stream;
        data::DeviceMoeWeights w = data::generate_synthetic_weights_gpu(data_kernels(), dsv41_flash(1), kSeed, stream);
        stream.synchronize();
        return w;
    }();
    return weights;
}

const data::MoeWeights& dsv41_host_weights() {
    static const data::MoeWeights weights = data::download(dsv41_device_weights());
    return weights;
}

}  // namespace moetune::test
