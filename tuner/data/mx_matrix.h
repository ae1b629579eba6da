#pragma once
// MxfpMatrix (moe_problem.h) built from and turned back into floats. The matrix does not record
// whether its values are e4m3fn or packed e2m1, so each function names the format it expects.
#include <span>
#include <vector>

#include "data/moe_problem.h"
#include "formats/mx_quantize.h"

namespace moetune::data {

using formats::ActivationScales;

// x: row-major [rows, cols], cols a multiple of 32.
MxfpMatrix quantize_mxfp8_matrix(std::span<const float> x, int rows, int cols, ActivationScales mode);
std::vector<float> dequantize_mxfp8_matrix(const MxfpMatrix& m);

}  // namespace moetune::data
