// MXFP8 values and scales -> the wide layout the bf16 path's register-fed and _wgmma kernels read
// (common/mx_bf16_widen.h): for the measurement harness, which holds each bucket's inputs as MXFP8.
// (Where the source is bf16, as in libmoetune, mxfp8_quant_wide in mxfp8_quant.hip writes the same
// bits in one pass.) One thread per 32-element block: two 16-byte loads of values, four 16-byte stores.
#include "common/mx_bf16_widen.h"

struct alignas(16) mxfp8_widen_words {
    moetune_u32 w[4];
};

template <int THREADS>
__global__ void __launch_bounds__(THREADS)
    mxfp8_widen(const unsigned char* __restrict__ values, const unsigned char* __restrict__ scales,
                unsigned long long blocks, unsigned short* __restrict__ wide) {
    const unsigned long long stride = (unsigned long long)gridDim.x * THREADS;
    for (unsigned long long b = (unsigned long long)blockIdx.x * THREADS + threadIdx.x; b < blocks; b += stride) {
        const mxfp8_widen_words* in = reinterpret_cast<const mxfp8_widen_words*>(values + b * 32);
        mxfp8_widen_words* out = reinterpret_cast<mxfp8_widen_words*>(wide + b * 32);
        const unsigned char scale = scales[b];
        for (int half = 0; half < 2; ++half) {
            const mxfp8_widen_words v = in[half];
            for (int group = 0; group < 2; ++group) {
                mxfp8_widen_words o;
                mx_wide_group(v.w[2 * group], v.w[2 * group + 1], scale, o.w);
                out[2 * half + group] = o;
            }
        }
    }
}
