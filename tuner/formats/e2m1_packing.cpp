#include "formats/e2m1_packing.h"

#include <stdexcept>

#include "common/mx_types.h"

namespace moetune::formats {

std::vector<uint8_t> pack_e2m1(std::span<const uint8_t> codes) {
    if (codes.size() % 2 != 0) throw std::invalid_argument("pack_e2m1: odd number of e2m1 codes");
    std::vector<uint8_t> packed(codes.size() / 2);
    for (size_t i = 0; i < packed.size(); ++i) packed[i] = mx_pack_e2m1(codes[2 * i], codes[2 * i + 1]);
    return packed;
}

std::vector<uint8_t> unpack_e2m1(std::span<const uint8_t> packed) {
    std::vector<uint8_t> codes(packed.size() * 2);
    for (size_t i = 0; i < packed.size(); ++i) {
        codes[2 * i] = uint8_t(mx_e2m1_low(packed[i]));
        codes[2 * i + 1] = uint8_t(mx_e2m1_high(packed[i]));
    }
    return codes;
}

}  // namespace moetune::formats
