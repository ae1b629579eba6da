#pragma once
// Words of 8 e2m1 codes that together put every code in every element position: word c (0..15)
// holds element j = (c + 5 j) mod 16 (5 is odd, so the 16 words differ at every position).
#include <cstdint>

namespace moetune::test {

inline constexpr uint32_t kE2m1CoveringWords = 16;

inline uint32_t e2m1_covering_word(uint32_t c) {
    uint32_t word = 0;
    for (uint32_t j = 0; j < 8; ++j) word |= ((c + 5 * j) % 16) << (4 * j);
    return word;
}

}  // namespace moetune::test
