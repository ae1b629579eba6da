#include "formats/weight_layout.h"

#include <stdexcept>
#include <string>

#include "common/input_error.h"
#include "formats/e2m1_code.h"
#include "formats/mx_quantize.h"
#include "formats/tensor_permute.h"

namespace moetune::formats {
namespace {

// AITER's lane constants for the a16w4 shuffles (aiter/ops/shuffle.py): 16 rows per lane group
// (NLane), 4 K lanes, 16-byte K packs for values; 2x2 (K_Pack x N_Pack) e8m0 bytes per lane for scales.
constexpr int64_t kNLane = 16;
constexpr int64_t kKLane = 4;
constexpr int64_t kKPackBytes = 16;
constexpr int64_t kScaleKPack = 2;
constexpr int64_t kScaleNPack = 2;
// moetune's tensor-core fragment layout: 8 rows (the MMA N) by 64 bytes (128 FP4 values).
constexpr int64_t kMmaRows = 8;
constexpr int64_t kMmaChunkBytes = 64;

struct Permutation {
    std::vector<int64_t> shape;
    std::vector<int> order;
};

void require(bool ok, WeightLayout layout, const std::string& what) {
    if (!ok) throw std::invalid_argument(std::string(to_string(layout)) + " layout: " + what);
}

// The half-height of w1 (inter_dim): the gate and the up block are each this many rows.
int64_t half_rows(WeightLayout layout, const ExpertWeightDims& d) {
    require(d.rows % 2 == 0, layout, "gate_up weights need an even row count");
    require((d.rows / 2) % kNLane == 0, layout, "inter_dim must be a multiple of 16");
    return d.rows / 2;
}

Permutation value_permutation(WeightLayout layout, WeightRole role, const ExpertWeightDims& d) {
    const int64_t e = d.experts, k_bytes = d.cols / 2;
    switch (layout) {
    case WeightLayout::logical: break;
    case WeightLayout::gate_up_interleaved:
        if (role == WeightRole::down) break;
        // [E, gate|up, N/16, 16, Kbytes] -> [E, N/16, gate|up, 16, Kbytes]
        return {{e, 2, half_rows(layout, d) / kNLane, kNLane, k_bytes}, {0, 2, 1, 3, 4}};
    case WeightLayout::aiter_a16w4: {
        require(k_bytes % (kKLane * kKPackBytes) == 0, layout, "K must be a multiple of 128");
        const int64_t k0 = k_bytes / (kKLane * kKPackBytes);
        if (role == WeightRole::gate_up)
            // [E, 2, N0, NLane, K0, KLane, KPack] -> [E, N0, 2, K0, KLane, NLane, KPack]
            return {{e, 2, half_rows(layout, d) / kNLane, kNLane, k0, kKLane, kKPackBytes}, {0, 2, 1, 4, 5, 3, 6}};
        require(d.rows % kNLane == 0, layout, "rows must be a multiple of 16");
        // [E, N0, NLane, K0, KLane, KPack] -> [E, N0, K0, KLane, NLane, KPack]
        return {{e, d.rows / kNLane, kNLane, k0, kKLane, kKPackBytes}, {0, 1, 3, 4, 2, 5}};
    }
    case WeightLayout::mma_k128: {
        // A row's 64 bytes per 128-wide K chunk are [kb 4][t 4][4 bytes]; lane (g, t) of the 8-row
        // group takes bytes (kb, t) of row g for every kb: [n8][k128][g][t][kb][4 bytes].
        require(k_bytes % kMmaChunkBytes == 0, layout, "K must be a multiple of 128");
        const int64_t k128 = k_bytes / kMmaChunkBytes;
        if (role == WeightRole::gate_up)
            // Logical rows gu*inter + blk*16 + half*8 + g; GUGU order first, then the fragments:
            // [E, gu, blk, half, g, k128, kb, t, 4] -> [E, blk, gu, half, k128, g, t, kb, 4]
            return {{e, 2, half_rows(layout, d) / kNLane, 2, kMmaRows, k128, 4, 4, 4}, {0, 2, 1, 3, 5, 4, 7, 6, 8}};
        require(d.rows % kMmaRows == 0, layout, "rows must be a multiple of 8");
        // [E, n8, g, k128, kb, t, 4] -> [E, n8, k128, g, t, kb, 4]
        return {{e, d.rows / kMmaRows, kMmaRows, k128, 4, 4, 4}, {0, 1, 3, 2, 5, 4, 6}};
    }
    }
    return {{int64_t(d.experts) * d.rows * k_bytes}, {0}};
}

Permutation scale_permutation(WeightLayout layout, WeightRole role, const ExpertWeightDims& d) {
    const int64_t e = d.experts, k_scales = d.cols / kMxBlock;
    switch (layout) {
    case WeightLayout::logical: break;
    case WeightLayout::gate_up_interleaved:
    case WeightLayout::mma_k128:  // scales stay row-major; w1 rows in GUGU order like the values
        if (role == WeightRole::down) break;
        return {{e, 2, half_rows(layout, d) / kNLane, kNLane, k_scales}, {0, 2, 1, 3, 4}};
    case WeightLayout::aiter_a16w4: {
        require(k_scales % (kScaleKPack * kKLane) == 0, layout, "K must be a multiple of 256");
        const int64_t k1 = k_scales / (kScaleKPack * kKLane);
        if (role == WeightRole::gate_up)
            // [E, N_Pack(gate|up), N1, N_Lane, K1, K_Pack, K_Lane] -> [E, N1, K1, K_Lane, N_Lane, K_Pack, N_Pack]
            return {{e, kScaleNPack, half_rows(layout, d) / kNLane, kNLane, k1, kScaleKPack, kKLane},
                    {0, 2, 4, 6, 3, 5, 1}};
        require(d.rows % (kScaleNPack * kNLane) == 0, layout, "rows must be a multiple of 32");
        // [E, N1, N_Pack, N_Lane, K1, K_Pack, K_Lane] -> [E, N1, K1, K_Lane, N_Lane, K_Pack, N_Pack]
        return {{e, d.rows / (kScaleNPack * kNLane), kScaleNPack, kNLane, k1, kScaleKPack, kKLane},
                {0, 1, 4, 6, 3, 5, 2}};
    }
    }
    return {{int64_t(d.experts) * d.rows * k_scales}, {0}};
}

void check_dims(const ExpertWeightDims& d, size_t bytes, size_t bytes_per_row, const char* what) {
    if (d.experts <= 0 || d.rows <= 0 || d.cols <= 0 || d.cols % kMxBlock != 0)
        throw std::invalid_argument(std::string(what) + ": experts, rows and cols must be positive, cols a multiple of 32");
    if (bytes != size_t(d.experts) * size_t(d.rows) * bytes_per_row)
        throw std::invalid_argument(std::string(what) + ": buffer size does not match the dims");
}

}  // namespace

WeightLayout parse_weight_layout(std::string_view text) {
    for (WeightLayout l : kAllWeightLayouts)
        if (text == to_string(l)) return l;
    throw InputError("", 0,
                     "unknown weight layout '" + std::string(text) +
                         "' (expected logical, gate-up-interleaved, aiter-a16w4 or mma-k128)");
}

std::string_view to_string(WeightLayout layout) {
    switch (layout) {
    case WeightLayout::logical: return "logical";
    case WeightLayout::gate_up_interleaved: return "gate-up-interleaved";
    case WeightLayout::aiter_a16w4: return "aiter-a16w4";
    case WeightLayout::mma_k128: return "mma-k128";
    }
    return "?";
}

std::vector<uint8_t> lay_out_values(WeightLayout layout, WeightRole role, const ExpertWeightDims& dims,
                                    std::span<const uint8_t> packed, const MxE2m1Code& code) {
    check_dims(dims, packed.size(), size_t(dims.cols / 2), "lay_out_values");
    const Permutation p = value_permutation(layout, role, dims);
    std::vector<uint8_t> out = permute_dims(packed, p.shape, p.order);
    if (layout == WeightLayout::mma_k128) encode_e2m1_words(out, code);  // the kernels' code (mx_e2m1_code.h)
    return out;
}

std::vector<uint8_t> lay_out_scales(WeightLayout layout, WeightRole role, const ExpertWeightDims& dims,
                                    std::span<const uint8_t> scales) {
    check_dims(dims, scales.size(), size_t(dims.cols / kMxBlock), "lay_out_scales");
    const Permutation p = scale_permutation(layout, role, dims);
    return permute_dims(scales, p.shape, p.order);
}

}  // namespace moetune::formats
