#pragma once
// Seeded synthetic MoE inputs, counter-based and stateless: every element is a pure function of
// (seed, stream, index), so the CPU (tuner/data/synthetic_inputs.*) and a GPU generation kernel
// produce identical bytes in any order, on any device, on every run. Only integer arithmetic and
// exact float operations are used (no transcendental function, no division).
//
// Index conventions (logical, row-major layouts of tuner/data/moe_problem.h):
//   MX_SYNTH_W1        byte index into w1       [E, 2*inter, model_dim/2]  (fp4x2)
//   MX_SYNTH_W1_SCALE  index into w1_scale      [E, 2*inter, model_dim/32]
//   MX_SYNTH_W2        byte index into w2       [E, model_dim, inter/2]    (fp4x2)
//   MX_SYNTH_W2_SCALE  index into w2_scale      [E, model_dim, inter/32]
//   MX_SYNTH_HIDDEN    element index t*model_dim + k of the bf16 hidden states [M, model_dim]
//   MX_SYNTH_ROUTING, MX_SYNTH_EXPERT_ORDER  routing scores and expert popularity order; used on the
//                      CPU only (tuner/data/routing_generators.cpp), reserved here so no stream is reused.
// Magnitudes (docs/synthetic-data-and-routing.md): hidden ~ N(0, 0.58^2); w1 element std ~ 2^-7 * 2.4,
// w2 ~ 2^-5 * 2.4, so stage-1 gate/up and the final output are O(1) for model_dim/inter in the
// thousands, and SiLU(gate)*up stays far from the bf16/fp8 limits.
#include "mx_types.h"

enum {
    MX_SYNTH_W1 = 1,
    MX_SYNTH_W1_SCALE = 2,
    MX_SYNTH_W2 = 3,
    MX_SYNTH_W2_SCALE = 4,
    MX_SYNTH_HIDDEN = 5,
    MX_SYNTH_ROUTING = 6,
    MX_SYNTH_EXPERT_ORDER = 7,
};

// splitmix64's finaliser (Stafford variant 13): a bijective 64-bit mixer with full avalanche.
MOETUNE_HD moetune_u64 mx_synth_mix64(moetune_u64 z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// 64 random bits for element `index` of `stream`. The (seed, stream) pair is mixed first into a
// per-stream key, so nearby seeds and streams give unrelated sequences; the index then walks a
// Weyl sequence under that key.
MOETUNE_HD moetune_u64 mx_synth_hash64(moetune_u64 seed, unsigned stream, moetune_u64 index) {
    const moetune_u64 key = mx_synth_mix64(seed ^ (moetune_u64(stream) * 0xD1B54A32D192ED03ull));
    return mx_synth_mix64(key + (index + 1ull) * 0x9E3779B97F4A7C15ull);
}

MOETUNE_HD unsigned mx_synth_hash(moetune_u64 seed, unsigned stream, moetune_u64 index) {
    return unsigned(mx_synth_hash64(seed, stream, index) >> 32);
}

// One e2m1 code from 16 random bits: bit 15 is the sign, bits 0..14 pick the magnitude code by
// thresholds out of 32768. The thresholds are the cumulative code frequencies of AITER's weights
// (randn, per-1x32 scale ceil_pow2(amax/6), RNE to e2m1), measured over 6.4M elements:
// codes 0..7 = 10.7% 20.4% 18.0% 14.8% 16.2% 12.5% 6.5% 1.0% (E[code value^2] = 3.72).
MOETUNE_HD unsigned mx_synth_e2m1_code(unsigned bits16) {
    const unsigned draw = bits16 & 0x7FFFu;
    unsigned magnitude = 0;
    magnitude += draw >= 3499u;
    magnitude += draw >= 10185u;
    magnitude += draw >= 16090u;
    magnitude += draw >= 20939u;
    magnitude += draw >= 26246u;
    magnitude += draw >= 30330u;
    magnitude += draw >= 32445u;
    return (((bits16 >> 15) & 1u) << 3) | magnitude;
}

// A packed fp4x2 byte: low half of the hash -> even element (low nibble), high half -> odd element.
MOETUNE_HD unsigned char mx_synth_fp4_byte(moetune_u64 seed, unsigned stream, moetune_u64 byte_index) {
    const unsigned h = mx_synth_hash(seed, stream, byte_index);
    return mx_pack_e2m1(mx_synth_e2m1_code(h & 0xFFFFu), mx_synth_e2m1_code(h >> 16));
}

// The centre e8m0 byte of a scale stream: w1 2^-7 (120), w2 2^-5 (122); anything else 1.0.
MOETUNE_HD unsigned mx_synth_scale_centre(unsigned stream) {
    return stream == MX_SYNTH_W1_SCALE ? 120u : stream == MX_SYNTH_W2_SCALE ? 122u : 127u;
}

// A scale byte in {centre-1, centre, centre+1} with probabilities 1/4, 1/2, 1/4: neighbouring
// blocks have different scales, so a kernel applying the wrong block's scale is caught, while
// E[scale^2] stays 1.5625 * centre^2.
MOETUNE_HD unsigned char mx_synth_e8m0(moetune_u64 seed, unsigned stream, moetune_u64 index) {
    const unsigned two_bits = mx_synth_hash(seed, stream, index) >> 30;
    const unsigned offset = two_bits == 0 ? 0u : two_bits == 3 ? 2u : 1u;
    return (unsigned char)(mx_synth_scale_centre(stream) - 1u + offset);
}

// An approximately normal hidden value: the Irwin-Hall sum of four 16-bit uniforms (each
// (h + 1/2) / 65536) minus 2, i.e. mean 0, std sqrt(1/3) ~ 0.577, range (-2, 2). It is built in
// integers, converted exactly (|n| < 2^18) and scaled by 2^-16 (exact), then rounded to bf16: the
// returned float is the value of that bf16, the same bits on CPU and GPU.
MOETUNE_HD float mx_synth_hidden(moetune_u64 seed, moetune_u64 index) {
    const moetune_u64 h = mx_synth_hash64(seed, MX_SYNTH_HIDDEN, index);
    const int sum = int(h & 0xFFFFu) + int((h >> 16) & 0xFFFFu) + int((h >> 32) & 0xFFFFu) + int(h >> 48);
    const int centred = sum + 2 - 2 * 65536;  // sum of (h_i + 1/2) minus 2, in units of 2^-16
    return mx_round_to_bf16(float(centred) * mx_float_of(0x37800000u /* 2^-16 */));
}
