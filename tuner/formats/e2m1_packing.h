#pragma once
// FP4 e2m1 codes <-> packed fp4x2 bytes (torch.float4_e2m1fn_x2): element 2i in the low nibble,
// element 2i+1 in the high nibble of byte i (aiter-fmoe-format.md §4.1).
#include <cstdint>
#include <span>
#include <vector>

namespace moetune::formats {

// codes.size() must be even; each code is 0..15.
std::vector<uint8_t> pack_e2m1(std::span<const uint8_t> codes);
std::vector<uint8_t> unpack_e2m1(std::span<const uint8_t> packed);

}  // namespace moetune::formats
