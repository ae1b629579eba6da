#pragma once
// The byte layouts kernels read MXFP4 expert weights in, each made by one function from the
// logical tensor of tuner/data/moe_problem.h (w1 [E, 2*inter, K] with gate rows then up rows,
// w2 [E, model_dim, inter]; fp4x2 bytes plus e8m0 scales [E, rows, K/32]).
//
// A layout is a torch-style view + permute, as AITER writes its own (tensor_permute.h). To add
// the layout a new kernel reads: add an enumerator, its name, and its two permutations in
// weight_layout.cpp; everything else (parsing, tests' round trips) picks it up.
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "formats/e2m1_code.h"

namespace moetune::formats {

enum class WeightLayout {
    logical,              // unchanged: rows in order, w1 = all gate rows then all up rows (GGUU)
    gate_up_interleaved,  // w1 rows GUGU in 16-row blocks (AITER GateMode.INTERLEAVE order); row bytes untouched
    aiter_a16w4,          // AITER shuffle_weight_a16w4 + shuffle_scale_a16w4: what FlyDSL `_gui` kernels read
    mma_k128,             // what moetune's kernels read (kernel_templates/common/moe_gemm.h): w1 rows GUGU
                          // in 16-row blocks, then per 8 rows x 128 K one 16-byte tensor-core fragment per lane;
                          // each 4-byte word of values in the kernels' e2m1 code (formats/e2m1_code.h)
};

inline constexpr WeightLayout kAllWeightLayouts[] = {WeightLayout::logical, WeightLayout::gate_up_interleaved,
                                                     WeightLayout::aiter_a16w4, WeightLayout::mma_k128};

// Parses "logical", "gate-up-interleaved", "aiter-a16w4" or "mma-k128"; throws InputError otherwise.
WeightLayout parse_weight_layout(std::string_view text);
std::string_view to_string(WeightLayout layout);

// w1 holds the gate and up projections (interleavable); w2 (down) does not.
enum class WeightRole { gate_up, down };

struct ExpertWeightDims {
    int experts = 0;
    int rows = 0;  // 2*inter for gate_up, model_dim for down
    int cols = 0;  // logical K elements per row (a multiple of 32)
};

// packed: experts*rows*cols/2 fp4x2 bytes. Throws std::invalid_argument when the dims do not suit
// the layout (e.g. aiter_a16w4 needs K % 256 == 0 and 16-row, for down scales 32-row, blocks).
// mma_k128's words are in `code` (formats/e2m1_code.h): the kernel layout's, or e2m1_e4m3_code()
// for the register-fed FP8 kernels' copy.
std::vector<uint8_t> lay_out_values(WeightLayout layout, WeightRole role, const ExpertWeightDims& dims,
                                    std::span<const uint8_t> packed, const MxE2m1Code& code = e2m1_code());
// scales: experts*rows*cols/32 e8m0 bytes.
std::vector<uint8_t> lay_out_scales(WeightLayout layout, WeightRole role, const ExpertWeightDims& dims,
                                    std::span<const uint8_t> scales);

}  // namespace moetune::formats
