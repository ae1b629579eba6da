#include "formats/e2m1_code.h"

#include <array>
#include <cstring>
#include <stdexcept>

namespace moetune::formats {
namespace {

// A vector of the decoder's output space: the carrying bits (MOETUNE_E2M1_PAIR_MASK) of the 4 pairs.
using Pairs = std::array<uint32_t, 4>;

Pairs decode(uint32_t coded) {
    Pairs p{};
    for (int q = 0; q < 4; ++q) p[q] = mx_e2m1_decode_pair(coded, q);
    return p;
}

// What the pairs must hold for the plain word: element e as a biased bf16 half, exponent and mantissa
// at bits 6..8 and the sign at 15 (mx_e2m1_code.h), pair q = elements (lo, lo + 2) in its two halves.
Pairs wanted(uint32_t word) {
    Pairs p{};
    for (int q = 0; q < 4; ++q)
        for (int half = 0; half < 2; ++half) {
            const uint32_t code = (word >> (4 * (mx_e2m1_pair_low_element(q) + 2 * half))) & 0xFu;
            p[q] |= (((code & 7u) << 6) | ((code & 8u) << 12)) << (16 * half);
        }
    return p;
}

// Gauss-Jordan over GF(2): rows of (decoded image, the coded word that gives it), reduced so that each
// pivot bit appears in one row only. Solving D(w) = target is then reducing target by the pivots.
MxE2m1Code build() {
    struct Row {
        Pairs image;
        uint32_t preimage;
        int word = -1, bit = -1;  // pivot
    };
    std::array<Row, 32> rows{};
    int rank = 0;
    for (int i = 0; i < 32; ++i) {
        Row r{decode(1u << i), 1u << i};
        for (int k = 0; k < rank; ++k)
            if ((r.image[rows[k].word] >> rows[k].bit) & 1u) {
                for (int q = 0; q < 4; ++q) r.image[q] ^= rows[k].image[q];
                r.preimage ^= rows[k].preimage;
            }
        for (int q = 0; q < 4 && r.word < 0; ++q)
            if (r.image[q]) r.word = q, r.bit = __builtin_ctz(r.image[q]);
        if (r.word < 0) throw std::logic_error("e2m1 code: the decoder's shifts do not give an invertible system");
        for (int k = 0; k < rank; ++k)
            if ((rows[k].image[r.word] >> r.bit) & 1u) {
                for (int q = 0; q < 4; ++q) rows[k].image[q] ^= r.image[q];
                rows[k].preimage ^= r.preimage;
            }
        rows[rank++] = r;
    }
    MxE2m1Code code{};
    for (int i = 0; i < 32; ++i) {
        Pairs target = wanted(1u << i);
        uint32_t coded = 0;
        for (const Row& r : rows)
            if ((target[r.word] >> r.bit) & 1u) {
                for (int q = 0; q < 4; ++q) target[q] ^= r.image[q];
                coded ^= r.preimage;
            }
        if (target != Pairs{}) throw std::logic_error("e2m1 code: a wanted pair bit is outside the decoder's image");
        code.column[i] = coded;
    }
    return code;
}

}  // namespace

const MxE2m1Code& e2m1_code() {
    static const MxE2m1Code code = build();
    return code;
}

void encode_e2m1_words(std::span<uint8_t> words) {
    if (words.size() % 4 != 0) throw std::invalid_argument("encode_e2m1_words: size is not a multiple of 4 bytes");
    const MxE2m1Code& code = e2m1_code();
    for (std::size_t i = 0; i < words.size(); i += 4) {
        uint32_t w;
        std::memcpy(&w, words.data() + i, 4);
        w = mx_e2m1_encode(code, w);
        std::memcpy(words.data() + i, &w, 4);
    }
}

}  // namespace moetune::formats
