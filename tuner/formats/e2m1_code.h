#pragma once
// The codes the kernels store FP4 weight words in (kernel_templates/common/mx_e2m1_code.h): derived
// here from the kernels' own decoders by solving the linear system over GF(2) each defines, so an
// encoder cannot drift from its decoder.
#include <cstdint>
#include <span>

#include "common/mx_e2m1_code.h"

namespace moetune::formats {

// The encoder table (built once); the GPU layout kernel takes it as an argument.
const MxE2m1Code& e2m1_code();
// The same for the e4m3 code (mx_e2m1_e4m3_decode) of the FP8 register-fed kernels' weight copy.
const MxE2m1Code& e2m1_e4m3_code();
// The same for the f16 code (mx_e2m1_f16_decode) of the _gemv kernels' weight copy.
const MxE2m1Code& e2m1_f16_code();

// Replaces every 32-bit word (4 bytes, little endian) of `words` by its code (`code`'s encoder; the
// kernel layout's by default). Size a multiple of 4.
void encode_e2m1_words(std::span<uint8_t> words, const MxE2m1Code& code = e2m1_code());

}  // namespace moetune::formats
