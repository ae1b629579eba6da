#pragma once
// The number formats and layout of the _gemv kernels (common/mx_f16_gemv.h), for the kernels and the
// host (tuner/formats: the weights' encoder and copy, the rows' order; tuner/kernels: the tile shapes):
// the f16 code of FP4 weight words, where each element of the weights' copy comes from, the f16 row
// order, and binary16 conversions.
#include "host_device.h"
#include "mx_types.h"

// ---- the f16 code of FP4 weight words --------------------------------------------------------------
// Register i of a coded word w is  (w ^ shift_i(w)) & 0x8E008E00: two f16 halves, each an e2m1
// element's exponent and mantissa bits at f16 bits 9..11 and its sign at 15, i.e. the element's value
// times 2^-14 exactly (e2m1 exponent 0 lands on an f16 subnormal). The four shifts make the 32
// equations independent (a search over shifts found them), so every plain word has exactly one code;
// the host derives the encoder from this decoder (tuner/formats/e2m1_code.h, e2m1_f16_code). Element
// 2i + h of the plain word (bits 8i + 4h .. +3) is half h of register i.
#define MOETUNE_E2M1_F16_MASK 0x8E008E00u
MOETUNE_HD moetune_u32 mx_e2m1_f16_decode(moetune_u32 w, int i) {
    const moetune_u32 shifted = i == 0 ? w << 2 : i == 1 ? w << 6 : i == 2 ? w << 9 : w >> 3;
    return (w ^ shifted) & MOETUNE_E2M1_F16_MASK;
}
// The decoded halves' bias: a decoded value times this is the element's value.
#define MOETUNE_E2M1_F16_UNBIAS 16384.f

// The position, in halves, of element k of a row in the f16 row order: word (pair p, lane t, step j,
// register q) holds k = 64p + 16j + 2t + 8q (low half) and k + 1 (high half).
MOETUNE_HD int mx_f16_row_position(int k) {
    const int p = k / 64, j = (k % 64) / 16, r = k % 16, t = (r % 8) / 2, q = r / 8, h = r % 2;
    return (((p * 4 + t) * 4 + j) * 2 + q) * 2 + h;
}

// IEEE binary16 to float, exactly (the emulated product's and the host's reading of the rows).
MOETUNE_HD float mx_f16_to_float(moetune_u16 h) {
    const moetune_u32 sign = moetune_u32(h & 0x8000u) << 16, exponent = (h >> 10) & 0x1Fu, mantissa = h & 0x3FFu;
    if (exponent == 0) return mx_float_of(mx_bits_of(float(mantissa) * mx_float_of(0x33800000u)) | sign);  // 2^-24
    if (exponent == 31) return mx_float_of(sign | 0x7F800000u | (mantissa << 13));
    return mx_float_of(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}
// Float to binary16, round to nearest even, for |x| < 65520 (what stage 1 writes: below 2^15).
MOETUNE_HD moetune_u16 mx_float_to_f16(float x) {
#if MOETUNE_DEVICE_PASS && defined(__CUDA_ARCH__)
    moetune_u16 h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(x));
    return h;
#else
    const moetune_u32 bits = mx_bits_of(x), sign = (bits >> 16) & 0x8000u, magnitude = bits & 0x7FFFFFFFu;
    if (magnitude >= 0x38800000u)  // 2^-14 and up: normal
        return moetune_u16(sign | mx_shift_right_rne(magnitude - 0x38000000u, 13));
    // Subnormal: the value in units of 2^-24, rounded to nearest even.
    const float units = mx_float_of(magnitude) * mx_float_of(0x4B800000u);  // * 2^24
    const moetune_u32 whole = moetune_u32(units), rest2 = moetune_u32((units - float(whole)) * 2.f * 65536.f);
    const bool up = rest2 > 65536u || (rest2 == 65536u && (whole & 1u));
    return moetune_u16(sign | (whole + (up ? 1u : 0u)));
#endif
}

// ---- the weights' copy and the tiles --------------------------------------------------------------
// A stage-1 workgroup's tiles: one 32-column MX block of the output, 8 columns a tile.
constexpr int kMxF16GemvStage1Tiles = 4;
// The B columns of one product: the most rows of a sort block the kernels serve (one a token).
constexpr int kMxF16GemvColumns = 8;
// A cp.async slot of the ring: a pair's values (16 bytes a lane), then each lane's scale word.
constexpr int kMxF16GemvSlotBytes = 32 * 16 + 32 * 4;

// The logical row of row `r` (0..15) of 16-row tile `tile` of a weight matrix of `rows` rows: with
// gate_up (W1, gate rows then up rows) rows 0..7 are gate rows 8 tile.., rows 8..15 the up rows of the
// same columns; otherwise rows 16 tile...
MOETUNE_HD unsigned mx_f16_tile_logical_row(unsigned tile, unsigned r, unsigned rows, bool gate_up) {
    if (!gate_up) return tile * 16 + r;
    return (r < 8 ? 0u : rows / 2) + tile * 8 + r % 8;
}
// Register i of word j of lane (g, t) at pair p: half 0 holds the tile's element (row, k) below, half 1
// (row, k + 1) -- so one logical byte (k is even).
MOETUNE_HD unsigned mx_f16_tile_row_of(unsigned g, unsigned i) { return i & 1 ? g + 8 : g; }
MOETUNE_HD unsigned mx_f16_tile_k_of(unsigned p, unsigned j, unsigned t, unsigned i) {
    return 64 * p + 16 * j + 2 * t + (i & 2 ? 8 : 0);
}
// Byte b of lane group g's scale word at pair p: row (b & 1 ? g + 8 : g) of the tile, block 2p + b / 2.
MOETUNE_HD unsigned mx_f16_tile_scale_block(unsigned p, unsigned b) { return 2 * p + b / 2; }
