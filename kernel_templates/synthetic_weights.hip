// Seeded synthetic MoE inputs on the GPU, byte for byte what the CPU's make_synthetic_weights /
// make_synthetic_hidden produce: both call the stateless generators of common/synthetic.h with the
// same (seed, stream, index), so only the loop differs. DSv4.1-Flash's weights are 1.7 GB: the CPU
// takes tens of seconds for them, these kernels milliseconds. One launch fills one tensor
// (w1, w1_scale, w2, w2_scale or the hidden states); indices are 64-bit.
#include "common/synthetic.h"

// Packed e2m1 bytes of a weight stream (MX_SYNTH_W1 / MX_SYNTH_W2).
template <int THREADS>
__global__ void __launch_bounds__(THREADS) synth_fp4_bytes(unsigned char* __restrict__ out, unsigned long long count,
                                                           unsigned long long seed, unsigned stream) {
    const unsigned long long stride = (unsigned long long)gridDim.x * THREADS;
    for (unsigned long long i = (unsigned long long)blockIdx.x * THREADS + threadIdx.x; i < count; i += stride)
        out[i] = mx_synth_fp4_byte(seed, stream, i);
}

// e8m0 scale bytes of a scale stream (MX_SYNTH_W1_SCALE / MX_SYNTH_W2_SCALE).
template <int THREADS>
__global__ void __launch_bounds__(THREADS) synth_e8m0_bytes(unsigned char* __restrict__ out, unsigned long long count,
                                                            unsigned long long seed, unsigned stream) {
    const unsigned long long stride = (unsigned long long)gridDim.x * THREADS;
    for (unsigned long long i = (unsigned long long)blockIdx.x * THREADS + threadIdx.x; i < count; i += stride)
        out[i] = mx_synth_e8m0(seed, stream, i);
}

// Hidden states [tokens, model_dim] as floats (each the value of a bf16).
template <int THREADS>
__global__ void __launch_bounds__(THREADS)
    synth_hidden(float* __restrict__ out, unsigned long long count, unsigned long long seed) {
    const unsigned long long stride = (unsigned long long)gridDim.x * THREADS;
    for (unsigned long long i = (unsigned long long)blockIdx.x * THREADS + threadIdx.x; i < count; i += stride)
        out[i] = mx_synth_hidden(seed, i);
}
