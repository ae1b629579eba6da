#pragma once
// The code the kernels store FP4 weight words in (kernel_templates/common/mx_e2m1_code.h): derived
// here from the kernels' own decoder by solving the linear system over GF(2) it defines, so the
// encoder cannot drift from the decoder.
#include <cstdint>
#include <span>

#include "common/mx_e2m1_code.h"

namespace moetune::formats {

// The encoder table (built once); the GPU layout kernel takes it as an argument.
const MxE2m1Code& e2m1_code();

// Replaces every 32-bit word (4 bytes, little endian) of `words` by its code. Size a multiple of 4.
void encode_e2m1_words(std::span<uint8_t> words);

}  // namespace moetune::formats
