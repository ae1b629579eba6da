#pragma once
// Whole bf16 tensors to and from floats on the host (downloaded outputs, uploaded inputs), with the
// per-element conversions the kernels use (kernel_templates/common/mx_types.h).
#include <cstdint>
#include <span>
#include <vector>

namespace moetune::formats {

std::vector<float> bf16_to_floats(std::span<const uint16_t> bits);
// Rounds to nearest even, as the kernels' mx_float_to_bf16.
std::vector<uint16_t> floats_to_bf16(std::span<const float> values);

}  // namespace moetune::formats
