#include "formats/tensor_permute.h"

#include <stdexcept>

namespace moetune::formats {

std::vector<uint8_t> permute_dims(std::span<const uint8_t> src, std::span<const int64_t> shape,
                                  std::span<const int> order) {
    const size_t rank = shape.size();
    if (order.size() != rank) throw std::invalid_argument("permute_dims: order and shape differ in rank");
    int64_t total = 1;
    for (int64_t d : shape) {
        if (d <= 0) throw std::invalid_argument("permute_dims: non-positive dimension");
        total *= d;
    }
    if (total != int64_t(src.size())) throw std::invalid_argument("permute_dims: view does not match the buffer size");

    // Source strides of the view, then the strides seen in output dimension order.
    std::vector<int64_t> src_stride(rank, 1);
    for (size_t i = rank; i-- > 1;) src_stride[i - 1] = src_stride[i] * shape[i];
    std::vector<int64_t> out_shape(rank), stride(rank);
    std::vector<bool> used(rank, false);
    for (size_t i = 0; i < rank; ++i) {
        const int d = order[i];
        if (d < 0 || size_t(d) >= rank || used[size_t(d)]) throw std::invalid_argument("permute_dims: not a permutation");
        used[size_t(d)] = true;
        out_shape[i] = shape[size_t(d)];
        stride[i] = src_stride[size_t(d)];
    }

    // Walk the output in order with an odometer over its multi-index.
    std::vector<uint8_t> out(src.size());
    std::vector<int64_t> index(rank, 0);
    int64_t src_offset = 0;
    for (int64_t o = 0; o < total; ++o) {
        out[size_t(o)] = src[size_t(src_offset)];
        for (size_t i = rank; i-- > 0;) {
            src_offset += stride[i];
            if (++index[i] < out_shape[i]) break;
            src_offset -= stride[i] * out_shape[i];
            index[i] = 0;
        }
    }
    return out;
}

}  // namespace moetune::formats
