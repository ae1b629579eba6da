// Rebased MXFP8 rows (common/mx_rebase.h, formats/mx_rebase.h): each row one base, every element
// e4m3 of value * 2^(scale - base), exact where that is an e4m3, rounded to e4m3 below.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "common/fp4_weight_blocks.h"
#include "common/mx_bf16_widen.h"
#include "common/mx_e2m1_e4m3_lut.h"
#include "common/mx_rebase.h"
#include "common/rebased_weight_layout.h"
#include "common/shared_operand_layout.h"
#include "formats/mx_quantize.h"
#include "formats/weight_layout.h"
#include "formats/mx_rebase.h"
#include "support/catch.hpp"

using namespace moetune::formats;

namespace {

// Normal values whose MX blocks each sit at a random binade in [-spread, spread]: rows whose block
// scales differ by up to 2 * spread octaves, so some blocks are rebased exactly and some rounded.
std::vector<float> blocks_across_binades(std::size_t count, int spread, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_int_distribution<int> binade(-spread, spread);
    std::vector<float> x(count);
    for (std::size_t b = 0; b < count / kMxBlock; ++b) {
        const int e = binade(rng);
        for (int i = 0; i < kMxBlock; ++i) x[b * kMxBlock + i] = std::ldexp(normal(rng), e);
    }
    return x;
}

}  // namespace

TEST_CASE("an e4m3 byte rebased down by 2^k is the e4m3 nearest to value * 2^-k", "[formats][rebase]") {
    const float subnormal_step = std::ldexp(1.0f, -9);
    for (int b = 0; b < 256; ++b) {
        if ((b & 0x7F) == 0x7F) {
            CHECK(mx_e4m3_rebase((unsigned char)b, 3) == b);  // NaN stays NaN
            continue;
        }
        CHECK(mx_e4m3_rebase((unsigned char)b, 0) == b);
        const float x = mx_e4m3fn_to_float((unsigned char)b);
        for (int k = 1; k <= 140; ++k) {
            INFO("byte " << b << ", k " << k);
            const unsigned char r = mx_e4m3_rebase((unsigned char)b, k);
            const float got = mx_e4m3fn_to_float(r), want = std::ldexp(x, -k);
            CHECK(std::signbit(got) == std::signbit(x));
            if (std::fabs(want) >= std::ldexp(1.0f, -6) || std::fmod(want, subnormal_step) == 0.0f)
                CHECK(got == want);  // still an e4m3: exact
            else
                CHECK(std::fabs(got - want) <= subnormal_step / 2);  // rounded among the subnormals
        }
    }
}

TEST_CASE("rebase_mxfp8 keeps each row's largest scale and the values within e4m3 rounding", "[formats][rebase]") {
    const int rows = 12, cols = 512;
    const std::vector<float> x = blocks_across_binades(std::size_t(rows) * cols, 12, 7);
    std::vector<uint8_t> values(x.size()), scales(x.size() / kMxBlock), rebased(x.size()), bases(rows);
    quantize_mxfp8(x, rows, cols, ActivationScales::mxfp8, values, scales);
    std::vector<float> y(x.size());
    dequantize_mxfp8(values, scales, rows, cols, y);
    rebase_mxfp8(values, scales, rows, cols, rebased, bases);
    int exact = 0;
    for (int r = 0; r < rows; ++r) {
        const uint8_t* s = scales.data() + std::size_t(r) * cols / kMxBlock;
        CHECK(bases[r] == *std::max_element(s, s + cols / kMxBlock));
        const float unit = std::ldexp(1.0f, int(bases[r]) - 127);  // the row's 2^(base - 127)
        for (int c = 0; c < cols; ++c) {
            const std::size_t i = std::size_t(r) * cols + c;
            const float got = mx_e4m3fn_to_float(rebased[i]) * unit;
            INFO("row " << r << ", column " << c << ": " << y[i] << " rebased to " << got);
            CHECK(std::fabs(got - y[i]) <= std::ldexp(unit, -10));
            if (std::fmod(y[i] / unit, std::ldexp(1.0f, -9)) == 0.0f) CHECK(got == y[i]);  // an e4m3: exact
            exact += got == y[i];
        }
    }
    CHECK(exact > int(x.size()) / 2);
    std::vector<uint8_t> short_bases(rows - 1);
    CHECK_THROWS(rebase_mxfp8(values, scales, rows, cols, rebased, short_bases));

    // Interleaved words: the same bytes, each block's words in the fragments' order 0 2 4 6 1 3 5 7.
    std::vector<uint8_t> interleaved(x.size());
    rebase_mxfp8(values, scales, rows, cols, interleaved, bases, true);
    const int order[8] = {0, 2, 4, 6, 1, 3, 5, 7};
    for (std::size_t block = 0; block < x.size(); block += kMxBlock)
        for (int p = 0; p < 8; ++p)
            for (int b = 0; b < 4; ++b) CHECK(interleaved[block + 4 * p + b] == rebased[block + 4 * order[p] + b]);
}

// The kernel layout's coded FP4 words, rebased per row, give back every weight (within e4m3 rounding
// of blocks far below their row's largest), in the layout's row order: here the down role, whose
// rows are the logical ones.
TEST_CASE("rebase_coded_weights recovers the FP4 weights of the kernel layout per row", "[formats][rebase]") {
    const ExpertWeightDims dims{3, 48, 256};  // 144 rows: two 64-row blocks and a short one
    const int rows = dims.experts * dims.rows, K = dims.cols;
    const std::vector<float> x = blocks_across_binades(std::size_t(rows) * K, 10, 11);
    std::vector<uint8_t> packed(x.size() / 2), scales(x.size() / kMxBlock);
    quantize_mxfp4(x, rows, K, packed, scales);
    std::vector<float> y(x.size());
    dequantize_mxfp4(packed, scales, rows, K, y);
    const std::vector<uint8_t> coded = lay_out_values(WeightLayout::mma_k128, WeightRole::down, dims, packed);
    const std::vector<uint8_t> laid_scales = lay_out_scales(WeightLayout::mma_k128, WeightRole::down, dims, scales);
    std::vector<uint8_t> rebased(x.size()), bases(rows);
    rebase_coded_weights(coded, laid_scales, rows, K, rebased, bases);
    for (int r = 0; r < rows; ++r) {
        const uint8_t* s = scales.data() + std::size_t(r) * K / kMxBlock;
        CHECK(bases[r] == *std::max_element(s, s + K / kMxBlock));
        const float unit = std::ldexp(1.0f, int(bases[r]) - 127);
        for (int k = 0; k < K; ++k) {
            const std::size_t i = std::size_t(r) * K + k;
            const float got = mx_e4m3fn_to_float(rebased[mx_rebased_weight_offset(rows, K, r, k)]) * unit;
            INFO("row " << r << ", k " << k);
            if (int(bases[r]) - int(s[k / kMxBlock]) <= 8) CHECK(got == y[i]);  // e2m1 * 2^-8..2^0: exact
            else CHECK(std::fabs(got - y[i]) <= std::ldexp(unit, -10));
        }
    }
}

// The rebased weights' blocks (common/rebased_weight_layout.h): every element has its own byte, and
// each 64-row block's 128-wide chunk is, in order, the 8 KB a shared-operand FP8 buffer holds of
// those rows (fp8_chunk_copy.h copies it unit for unit, moe_fp8_ws_gemm.h in one bulk copy); an
// expert's rows start where plain row order puts them.
TEST_CASE("rebased weight blocks are the buffers' swizzled chunks, every element once", "[formats][rebase]") {
    for (const auto& [rows, K] : {std::pair{192, 384}, std::pair{136, 256}}) {
        std::vector<int> seen(std::size_t(rows) * K, 0);
        for (int row = 0; row < rows; ++row)
            for (int k = 0; k < K; ++k) {
                const long long at = mx_rebased_weight_offset(rows, K, row, k);
                REQUIRE(at >= 0);
                REQUIRE(at < (long long)seen.size());
                ++seen[std::size_t(at)];
                if (row - row % kMxRebasedBlockRows + kMxRebasedBlockRows <= rows) {  // a whole block
                    const int r = row % kMxRebasedBlockRows, unit = (k % 128) / 16;
                    const long long chunk = (long long)(row - r) * K + (long long)(k / 128) * kMxRebasedChunkBytes;
                    CHECK(at == chunk + mx_wgmma_unit_offset(kMxRebasedBlockRows, r, unit) + k % 16);
                }
            }
        CHECK(std::ranges::all_of(seen, [](int n) { return n == 1; }));
        for (int row = 128; row < 192; ++row)  // block 2 holds bytes 128 K .. 192 K - 1, as in row order
            for (int k = 0; k < K; ++k) {
                const long long at = mx_rebased_weight_offset(rows, K, row, k);
                CHECK((at >= 128LL * K && at < 192LL * K));
            }
    }
}

// The FP4 blocks (common/fp4_weight_blocks.h) hold every code once, and rebased by table
// (mx_e2m1x8_to_e4m3, 16 elements a unit as an FP8 loop's producer would) they give the rebased
// weights' bytes unit for unit, at their swizzled places: the loop that rebases them itself fills
// its buffers with what the bulk copies of the rebased weights bring.
TEST_CASE("FP4 weight blocks rebased by table are the rebased weights, unit for unit", "[formats][rebase]") {
    const ExpertWeightDims dims{2, 64, 384};  // both roles' row orders: gate_up rows are interleaved
    const int rows = dims.experts * dims.rows, K = dims.cols;
    const std::vector<float> x = blocks_across_binades(std::size_t(rows) * K, 12, 5);
    std::vector<uint8_t> packed(x.size() / 2), scales(x.size() / kMxBlock);
    quantize_mxfp4(x, rows, K, packed, scales);
    for (WeightRole role : {WeightRole::gate_up, WeightRole::down}) {
        const std::vector<uint8_t> coded = lay_out_values(WeightLayout::mma_k128, role, dims, packed);
        const std::vector<uint8_t> laid_scales = lay_out_scales(WeightLayout::mma_k128, role, dims, scales);
        std::vector<uint8_t> rebased(x.size()), bases(rows);
        rebase_coded_weights(coded, laid_scales, rows, K, rebased, bases);
        std::vector<uint8_t> blocks(std::size_t(rows) * std::size_t(mx_fp4_blocks_row_bytes(K))), fp4_bases(rows);
        fp4_weight_blocks(coded, laid_scales, rows, K, blocks, fp4_bases);
        CHECK(fp4_bases == bases);
        int units = 0;
        for (int r = 0; r < rows; ++r)
            for (int k = 0; k < K; k += 16) {
                const uint8_t* code = blocks.data() + mx_fp4_code_offset(K, r, k);
                const int table_row = blocks[std::size_t(mx_fp4_table_row_offset(K, r, k))];
                REQUIRE(table_row < kMxE2m1E4m3Shifts);
                uint32_t out[4];
                for (int h = 0; h < 2; ++h)
                    mx_e2m1x8_to_e4m3(mx_e4m3_word(code + 4 * h), mx_e2m1_e4m3_table_word(table_row, 0),
                                      mx_e2m1_e4m3_table_word(table_row, 1), out[2 * h], out[2 * h + 1]);
                for (int j = 0; j < 16; ++j) {
                    INFO("row " << r << ", k " << k + j);
                    CHECK(uint8_t(out[j / 4] >> (8 * (j % 4))) == rebased[mx_rebased_weight_offset(rows, K, r, k + j)]);
                }
                ++units;
            }
        CHECK(units == rows * K / 16);
    }
}

// Every byte of the FP4 blocks is one pair of codes or one table row, and a block-chunk is
// contiguous: 4352 bytes a bulk copy.
TEST_CASE("FP4 weight blocks hold every code and table row once, a block-chunk in one piece", "[formats][rebase]") {
    const int rows = 128, K = 256;
    std::vector<int> seen(std::size_t(rows) * std::size_t(mx_fp4_blocks_row_bytes(K)), 0);
    for (int r = 0; r < rows; ++r)
        for (int k = 0; k < K; ++k) {
            const long long chunk = mx_fp4_block_chunk_offset(K, r, k);
            const long long code = mx_fp4_code_offset(K, r, k), table_row = mx_fp4_table_row_offset(K, r, k);
            REQUIRE(code >= chunk);
            REQUIRE(code < chunk + kMxFp4ChunkBytes);
            REQUIRE(table_row >= chunk);
            REQUIRE(table_row < chunk + kMxFp4ChunkBytes);
            if (k % 2 == 0) ++seen[std::size_t(code)];
            if (k % kMxBlock == 0) ++seen[std::size_t(table_row)];
        }
    CHECK(std::count(seen.begin(), seen.end(), 1) == (long long)seen.size());
}

// What the _f4w consumers read of a staged block-chunk and where they store a rebased unit
// (moe_fp8_ws_gemm.h, rebase_weights) is where the FP4 blocks keep the unit's codes and table row and
// where the bulk copies of the rebased weights put its bytes in a chunk buffer (the block-chunk's 8 KB
// at 8192 b for the tile's block b).
TEST_CASE("the _f4w consumers read a unit's codes and table row and store its bytes where the layouts keep them",
          "[formats][rebase]") {
    const int K = 384, tile_rows = 256;
    for (int k128 = 0; k128 < K / 128; ++k128)
        for (int row = 0; row < tile_rows; ++row)
            for (int u = 0; u < 8; ++u) {
                const int b = row / kMxFp4BlockRows, r = row % kMxFp4BlockRows, k = 128 * k128 + 16 * u;
                const long long chunk = mx_fp4_block_chunk_offset(K, row, k);
                INFO("chunk " << k128 << ", row " << row << ", unit " << u);
                CHECK(chunk == mx_fp4_block_chunk_offset(K, b * kMxFp4BlockRows, 128 * k128));
                CHECK(chunk + mx_fp4_unit_codes(r, u) == mx_fp4_code_offset(K, row, k));
                CHECK(chunk + mx_fp4_unit_table_row(r, u) == mx_fp4_table_row_offset(K, row, k));
                const long long rebased_chunk = mx_rebased_weight_offset(tile_rows, K, b * kMxRebasedBlockRows, 128 * k128);
                for (int j = 0; j < 16; ++j)
                    CHECK(mx_ws_rebased_unit(row, u) + j ==
                          b * kMxRebasedChunkBytes + mx_rebased_weight_offset(tile_rows, K, row, k + j) - rebased_chunk);
            }
}
