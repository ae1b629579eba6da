#pragma once
// torch's `x.view(shape).permute(order).contiguous()` on a byte buffer. AITER defines every weight
// and scale pre-shuffle as one such view + permute (aiter-fmoe-format.md §4.2-4.3), so writing the
// layouts the same way keeps them checkable line by line against AITER's source.
#include <cstdint>
#include <span>
#include <vector>

namespace moetune::formats {

// shape: the view (its product must equal src.size()); order: a permutation of 0..shape.size()-1,
// out dimension i = source dimension order[i].
std::vector<uint8_t> permute_dims(std::span<const uint8_t> src, std::span<const int64_t> shape,
                                  std::span<const int> order);

}  // namespace moetune::formats
