#include "formats/bf16_vector.h"

#include <algorithm>

#include "common/mx_types.h"

namespace moetune::formats {

std::vector<float> bf16_to_floats(std::span<const uint16_t> bits) {
    std::vector<float> out(bits.size());
    std::transform(bits.begin(), bits.end(), out.begin(), [](uint16_t b) { return mx_bf16_to_float(b); });
    return out;
}

std::vector<uint16_t> floats_to_bf16(std::span<const float> values) {
    std::vector<uint16_t> out(values.size());
    std::transform(values.begin(), values.end(), out.begin(), [](float v) { return mx_float_to_bf16(v); });
    return out;
}

}  // namespace moetune::formats
