#include "formats/bf16_vector.h"

#include <algorithm>
#include <cstdint>

#include "common/mx_types.h"
#include "common/parallel_for.h"

namespace moetune::formats {

std::vector<float> bf16_to_floats(std::span<const uint16_t> bits) {
    std::vector<float> out(bits.size());
    parallel_slices(int64_t(bits.size()), [&](int64_t begin, int64_t end) {
        std::transform(bits.begin() + begin, bits.begin() + end, out.begin() + begin,
                       [](uint16_t b) { return mx_bf16_to_float(b); });
    });
    return out;
}

std::vector<uint16_t> floats_to_bf16(std::span<const float> values) {
    std::vector<uint16_t> out(values.size());
    parallel_slices(int64_t(values.size()), [&](int64_t begin, int64_t end) {
        std::transform(values.begin() + begin, values.begin() + end, out.begin() + begin,
                       [](float v) { return mx_float_to_bf16(v); });
    });
    return out;
}

}  // namespace moetune::formats
