// Stage 2 reduce mode: out[token, n] = sum over slots s of partial[token*topk + s, n], summed in FP32
// in slot order (deterministic), written as bf16. Each thread handles 8 columns (16 bytes).
#include "common/host_device.h"
#include "common/moe_args.h"
#include "common/mx_types.h"

template <int THREADS>
__global__ void __launch_bounds__(THREADS) moe_reduce_kernel(const MoeReduceArgs args) {
    const long long groups_per_row = args.model_dim / 8;
    const long long idx = (long long)blockIdx.x * THREADS + threadIdx.x;
    if (idx >= (long long)args.tokens * groups_per_row) return;
    const long long token = idx / groups_per_row;
    const int col = int(idx % groups_per_row) * 8;

    float sum[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
    for (int s = 0; s < args.topk; ++s) {
        const unsigned short* p = args.partial + (token * args.topk + s) * args.model_dim + col;
        const moetune_u32* words = reinterpret_cast<const moetune_u32*>(p);
#pragma unroll
        for (int w = 0; w < 4; ++w) {
            const moetune_u32 v = words[w];
            sum[2 * w] += mx_bf16_to_float((unsigned short)(v & 0xFFFFu));
            sum[2 * w + 1] += mx_bf16_to_float((unsigned short)(v >> 16));
        }
    }
    moetune_u32* out = reinterpret_cast<moetune_u32*>(args.out + token * args.model_dim + col);
#pragma unroll
    for (int w = 0; w < 4; ++w)
        out[w] = moetune_u32(mx_float_to_bf16(sum[2 * w])) | (moetune_u32(mx_float_to_bf16(sum[2 * w + 1])) << 16);
}
