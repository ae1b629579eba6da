// MXFP8 values and scales -> the wide layout the bf16 path's register-fed and _wgmma kernels read
// (common/mx_bf16_widen.h): for the measurement harness, which holds each bucket's inputs as MXFP8.
// (Where the source is bf16, as in libmoetune, mxfp8_quant_wide in mxfp8_quant.hip writes the same
// bits in one pass.) One thread per 32-element block: two 16-byte loads of values, four 16-byte stores.
#include "common/mx_bf16_widen.h"
#include "common/mx_f16_code.h"

template <int THREADS>
__global__ void __launch_bounds__(THREADS)
    mxfp8_widen(const unsigned char* __restrict__ values, const unsigned char* __restrict__ scales,
                unsigned long long blocks, unsigned short* __restrict__ wide) {
    const unsigned long long stride = (unsigned long long)gridDim.x * THREADS;
    for (unsigned long long b = (unsigned long long)blockIdx.x * THREADS + threadIdx.x; b < blocks; b += stride) {
        const mx_wide_vector* in = reinterpret_cast<const mx_wide_vector*>(values + b * 32);
        moetune_u32 words[8], widened[16];
        for (int half = 0; half < 2; ++half) {
            const mx_wide_vector v = in[half];
            for (int w = 0; w < 4; ++w) words[4 * half + w] = v.w[w];
        }
        mx_wide_block(words, scales[b], widened);
        mx_store_wide_block(wide + b * 32, widened);
    }
}

// MXFP8 values -> the f16 rows the _gemv kernels read (common/mx_f16_gemv.h): each e4m3 value exactly as
// f16, at its place in the row order; the block scales are read as they are. One thread an element.
template <int THREADS>
__global__ void __launch_bounds__(THREADS)
    mxfp8_f16_rows(const unsigned char* __restrict__ values, unsigned long long elements, unsigned cols,
                   unsigned short* __restrict__ rows) {
    const unsigned long long stride = (unsigned long long)gridDim.x * THREADS;
    for (unsigned long long e = (unsigned long long)blockIdx.x * THREADS + threadIdx.x; e < elements; e += stride) {
        const unsigned long long row = e / cols;
        const int k = int(e % cols);
        rows[row * cols + mx_f16_row_position(k)] = mx_float_to_f16(mx_e4m3fn_to_float(values[e]));
    }
}
