#include "data/mx_matrix.h"

#include <stdexcept>

namespace moetune::data {

MxfpMatrix quantize_mxfp8_matrix(std::span<const float> x, int rows, int cols, ActivationScales mode) {
    if (rows < 0 || cols < 0 || cols % formats::kMxBlock != 0)
        throw std::invalid_argument("quantize_mxfp8_matrix: cols must be a non-negative multiple of 32");
    MxfpMatrix m;
    m.rows = rows;
    m.cols = cols;
    m.values.resize(size_t(rows) * size_t(cols));
    m.scales.resize(size_t(rows) * size_t(cols / formats::kMxBlock));
    formats::quantize_mxfp8(x, rows, cols, mode, m.values, m.scales);
    return m;
}

std::vector<float> dequantize_mxfp8_matrix(const MxfpMatrix& m) {
    std::vector<float> out(size_t(m.rows) * size_t(m.cols));
    formats::dequantize_mxfp8(m.values, m.scales, m.rows, m.cols, out);
    return out;
}

}  // namespace moetune::data
