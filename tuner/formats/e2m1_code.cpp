#include "formats/e2m1_code.h"

#include <array>
#include <cstring>
#include <stdexcept>
#include <string>

#include "common/mx_f16_code.h"

namespace moetune::formats {
namespace {

// A vector of a decoder's output space, as many 32-bit words as it produces (4 pairs, or 2 e4m3 words).
using Image = std::array<uint32_t, 4>;

// One of the kernels' codes: the decoder (coded word -> image) and the image the plain word must give.
struct Decoder {
    Image (*decode)(uint32_t coded);
    Image (*wanted)(uint32_t word);
};

uint32_t element_code(uint32_t word, int e) { return (word >> (4 * e)) & 0xFu; }

// A decoder of four registers (pairs of halves) as an Image.
template <moetune_u32 (*Register)(moetune_u32, int)>
Image decode_four(uint32_t coded) {
    Image p{};
    for (int q = 0; q < 4; ++q) p[q] = Register(coded, q);
    return p;
}

// The pairs code: element e as a biased bf16 half, exponent and mantissa at bits 6..8 and the sign at
// 15 (mx_e2m1_code.h), pair q = elements (lo, lo + 2) in its two halves.
Image wanted_pairs(uint32_t word) {
    Image p{};
    for (int q = 0; q < 4; ++q)
        for (int half = 0; half < 2; ++half) {
            const uint32_t code = element_code(word, mx_e2m1_pair_low_element(q) + 2 * half);
            p[q] |= (((code & 7u) << 6) | ((code & 8u) << 12)) << (16 * half);
        }
    return p;
}

// The e4m3 code: word h byte j = element 4h + j, exponent and mantissa at bits 2..4, sign at 7.
Image decode_e4m3(uint32_t coded) { return {mx_e2m1_e4m3_decode(coded, 0), mx_e2m1_e4m3_decode(coded, 1), 0, 0}; }
Image wanted_e4m3(uint32_t word) {
    Image p{};
    for (int e = 0; e < 8; ++e) {
        const uint32_t code = element_code(word, e);
        p[e / 4] |= (((code & 7u) << 2) | ((code & 8u) << 4)) << (8 * (e % 4));
    }
    return p;
}

// The f16 code (mx_f16_gemv.h): element 2i + h as half h of register i, exponent and mantissa at f16
// bits 9..11 and the sign at 15.
Image wanted_f16(uint32_t word) {
    Image p{};
    for (int e = 0; e < 8; ++e) {
        const uint32_t code = element_code(word, e);
        p[e / 2] |= (((code & 7u) << 9) | ((code & 8u) << 12)) << (16 * (e % 2));
    }
    return p;
}

// Gauss-Jordan over GF(2): rows of (decoded image, the coded word that gives it), reduced so that each
// pivot bit appears in one row only. Solving D(w) = target is then reducing target by the pivots.
MxE2m1Code solve(const Decoder& d, const char* name) {
    struct Row {
        Image image;
        uint32_t preimage;
        int word = -1, bit = -1;  // pivot
    };
    auto reduce = [](Image& image, const Image& by) {
        for (std::size_t q = 0; q < image.size(); ++q) image[q] ^= by[q];
    };
    std::array<Row, 32> rows{};
    int rank = 0;
    for (int i = 0; i < 32; ++i) {
        Row r{d.decode(1u << i), 1u << i};
        for (int k = 0; k < rank; ++k)
            if ((r.image[rows[k].word] >> rows[k].bit) & 1u) {
                reduce(r.image, rows[k].image);
                r.preimage ^= rows[k].preimage;
            }
        for (int q = 0; q < 4 && r.word < 0; ++q)
            if (r.image[q]) r.word = q, r.bit = __builtin_ctz(r.image[q]);
        if (r.word < 0) throw std::logic_error(std::string(name) + ": the decoder's shifts do not give an invertible system");
        for (int k = 0; k < rank; ++k)
            if ((rows[k].image[r.word] >> r.bit) & 1u) {
                reduce(rows[k].image, r.image);
                rows[k].preimage ^= r.preimage;
            }
        rows[rank++] = r;
    }
    MxE2m1Code code{};
    for (int i = 0; i < 32; ++i) {
        Image target = d.wanted(1u << i);
        uint32_t coded = 0;
        for (const Row& r : rows)
            if ((target[r.word] >> r.bit) & 1u) {
                reduce(target, r.image);
                coded ^= r.preimage;
            }
        if (target != Image{}) throw std::logic_error(std::string(name) + ": a wanted bit is outside the decoder's image");
        code.column[i] = coded;
    }
    return code;
}

}  // namespace

const MxE2m1Code& e2m1_code() {
    static const MxE2m1Code code = solve({decode_four<mx_e2m1_decode_pair>, wanted_pairs}, "e2m1 pairs code");
    return code;
}

const MxE2m1Code& e2m1_e4m3_code() {
    static const MxE2m1Code code = solve({decode_e4m3, wanted_e4m3}, "e2m1 e4m3 code");
    return code;
}

const MxE2m1Code& e2m1_f16_code() {
    static const MxE2m1Code code = solve({decode_four<mx_e2m1_f16_decode>, wanted_f16}, "e2m1 f16 code");
    return code;
}

void encode_e2m1_words(std::span<uint8_t> words, const MxE2m1Code& code) {
    if (words.size() % 4 != 0) throw std::invalid_argument("encode_e2m1_words: size is not a multiple of 4 bytes");
    for (std::size_t i = 0; i < words.size(); i += 4) {
        uint32_t w;
        std::memcpy(&w, words.data() + i, 4);
        w = mx_e2m1_encode(code, w);
        std::memcpy(words.data() + i, &w, 4);
    }
}

}  // namespace moetune::formats
