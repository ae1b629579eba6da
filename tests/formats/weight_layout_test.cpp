// Weight layouts: each layout's permutation checked element by element against an offset
// formula written out here, independently of the view/permute machinery.
#include <cstdint>
#include <random>
#include <vector>

#include "common/input_error.h"
#include "formats/e2m1_code.h"
#include "formats/tensor_permute.h"
#include "formats/weight_layout.h"
#include "support/catch.hpp"

using namespace moetune::formats;

namespace {

std::vector<uint8_t> random_bytes(size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<uint8_t> v(n);
    for (uint8_t& b : v) b = uint8_t(rng());
    return v;
}

}  // namespace

TEST_CASE("permute_dims transposes like torch permute().contiguous()", "[formats][layout]") {
    const std::vector<uint8_t> m = {0, 1, 2, 3, 4, 5};  // [2, 3]
    const std::vector<int64_t> shape = {2, 3};
    const std::vector<int> order = {1, 0};
    CHECK(permute_dims(m, shape, order) == std::vector<uint8_t>{0, 3, 1, 4, 2, 5});
    const std::vector<int> bad = {0, 0};
    CHECK_THROWS_AS(permute_dims(m, shape, bad), std::invalid_argument);
}

TEST_CASE("the logical layout leaves bytes untouched", "[formats][layout]") {
    const ExpertWeightDims d{2, 64, 256};
    const auto values = random_bytes(size_t(2 * 64 * 128), 1);
    const auto scales = random_bytes(size_t(2 * 64 * 8), 2);
    for (WeightRole role : {WeightRole::gate_up, WeightRole::down}) {
        CHECK(lay_out_values(WeightLayout::logical, role, d, values) == values);
        CHECK(lay_out_scales(WeightLayout::logical, role, d, scales) == scales);
    }
}

TEST_CASE("gate/up interleave puts each 16-row gate block before its up block", "[formats][layout]") {
    const int experts = 3, inter = 48, cols = 64;  // 3 blocks of 16 rows per half
    const ExpertWeightDims d{experts, 2 * inter, cols};
    for (const int row_bytes : {cols / 2, cols / 32}) {
        const bool is_values = row_bytes == cols / 2;
        const auto src = random_bytes(size_t(experts) * 2 * inter * size_t(row_bytes), 3);
        const auto out = is_values ? lay_out_values(WeightLayout::gate_up_interleaved, WeightRole::gate_up, d, src)
                                   : lay_out_scales(WeightLayout::gate_up_interleaved, WeightRole::gate_up, d, src);
        for (int e = 0; e < experts; ++e)
            for (int nb = 0; nb < inter / 16; ++nb)
                for (int half = 0; half < 2; ++half)
                    for (int r = 0; r < 16; ++r) {
                        const size_t out_row = size_t(e) * 2 * inter + size_t(nb) * 32 + size_t(half) * 16 + size_t(r);
                        const size_t src_row = size_t(e) * 2 * inter + size_t(half) * inter + size_t(nb) * 16 + size_t(r);
                        for (int k = 0; k < row_bytes; ++k)
                            REQUIRE(out[out_row * size_t(row_bytes) + size_t(k)] == src[src_row * size_t(row_bytes) + size_t(k)]);
                    }
    }
    // w2 has no gate/up halves: unchanged.
    const auto w2 = random_bytes(size_t(experts) * 96 * 32, 4);
    CHECK(lay_out_values(WeightLayout::gate_up_interleaved, WeightRole::down, d, w2) == w2);
}

TEST_CASE("aiter-a16w4 values follow shuffle_weight_a16w4", "[formats][layout]") {
    const int experts = 2, inter = 32, k = 256, k_bytes = k / 2, k0_count = k_bytes / 64;
    // gate_up: source [E, 2, N0, 16, K0, 4, 16] lands at [E, N0, 2, K0, 4, 16(row), 16(byte)].
    const auto w1 = random_bytes(size_t(experts) * 2 * inter * k_bytes, 5);
    const auto out1 = lay_out_values(WeightLayout::aiter_a16w4, WeightRole::gate_up, {experts, 2 * inter, k}, w1);
    const int n0_count = inter / 16;
    for (int e = 0; e < experts; ++e)
        for (int h = 0; h < 2; ++h)
            for (int n0 = 0; n0 < n0_count; ++n0)
                for (int nl = 0; nl < 16; ++nl)
                    for (int kb = 0; kb < k_bytes; ++kb) {
                        const int k0 = kb / 64, kl = (kb / 16) % 4, kp = kb % 16;
                        const size_t src = ((size_t(e) * 2 + size_t(h)) * size_t(inter) + size_t(n0) * 16 + size_t(nl)) * size_t(k_bytes) + size_t(kb);
                        const size_t dst =
                            (((((size_t(e) * size_t(n0_count) + size_t(n0)) * 2 + size_t(h)) * size_t(k0_count) + size_t(k0)) * 4 + size_t(kl)) * 16 + size_t(nl)) * 16 + size_t(kp);
                        REQUIRE(out1[dst] == w1[src]);
                    }
    // down: source [E, N0, 16, K0, 4, 16] lands at [E, N0, K0, 4, 16(row), 16(byte)].
    const int rows = 48;
    const auto w2 = random_bytes(size_t(experts) * rows * k_bytes, 6);
    const auto out2 = lay_out_values(WeightLayout::aiter_a16w4, WeightRole::down, {experts, rows, k}, w2);
    for (int e = 0; e < experts; ++e)
        for (int n = 0; n < rows; ++n)
            for (int kb = 0; kb < k_bytes; ++kb) {
                const int n0 = n / 16, nl = n % 16, k0 = kb / 64, kl = (kb / 16) % 4, kp = kb % 16;
                const size_t src = (size_t(e) * rows + size_t(n)) * size_t(k_bytes) + size_t(kb);
                const size_t dst = ((((size_t(e) * (rows / 16) + size_t(n0)) * size_t(k0_count) + size_t(k0)) * 4 + size_t(kl)) * 16 + size_t(nl)) * 16 + size_t(kp);
                REQUIRE(out2[dst] == w2[src]);
            }
}

TEST_CASE("aiter-a16w4 scales follow shuffle_scale_a16w4", "[formats][layout]") {
    const int experts = 2, inter = 32, k = 512, ks = k / 32, k1_count = ks / 8;
    // gate_up: [E, 2(N_Pack), N1, 16, K1, 2(K_Pack), 4(K_Lane)] -> [E, N1, K1, K_Lane, 16, K_Pack, N_Pack]
    const int n1_count = inter / 16;
    const auto s1 = random_bytes(size_t(experts) * 2 * inter * ks, 7);
    const auto out1 = lay_out_scales(WeightLayout::aiter_a16w4, WeightRole::gate_up, {experts, 2 * inter, k}, s1);
    for (int e = 0; e < experts; ++e)
        for (int np = 0; np < 2; ++np)
            for (int n1 = 0; n1 < n1_count; ++n1)
                for (int nl = 0; nl < 16; ++nl)
                    for (int kk = 0; kk < ks; ++kk) {
                        const int k1 = kk / 8, kp = (kk / 4) % 2, kl = kk % 4;
                        const size_t src = ((size_t(e) * 2 + size_t(np)) * size_t(inter) + size_t(n1) * 16 + size_t(nl)) * size_t(ks) + size_t(kk);
                        const size_t dst =
                            ((((((size_t(e) * size_t(n1_count) + size_t(n1)) * size_t(k1_count) + size_t(k1)) * 4 + size_t(kl)) * 16 + size_t(nl)) * 2 + size_t(kp)) * 2) + size_t(np);
                        REQUIRE(out1[dst] == s1[src]);
                    }
    // down: [E, N1, 2(N_Pack), 16, K1, 2, 4] -> [E, N1, K1, K_Lane, 16, K_Pack, N_Pack]
    const int rows = 64;
    const auto s2 = random_bytes(size_t(experts) * rows * ks, 8);
    const auto out2 = lay_out_scales(WeightLayout::aiter_a16w4, WeightRole::down, {experts, rows, k}, s2);
    for (int e = 0; e < experts; ++e)
        for (int n = 0; n < rows; ++n)
            for (int kk = 0; kk < ks; ++kk) {
                const int n1 = n / 32, np = (n / 16) % 2, nl = n % 16, k1 = kk / 8, kp = (kk / 4) % 2, kl = kk % 4;
                const size_t src = (size_t(e) * rows + size_t(n)) * size_t(ks) + size_t(kk);
                const size_t dst =
                    ((((((size_t(e) * (rows / 32) + size_t(n1)) * size_t(k1_count) + size_t(k1)) * 4 + size_t(kl)) * 16 + size_t(nl)) * 2 + size_t(kp)) * 2) + size_t(np);
                REQUIRE(out2[dst] == s2[src]);
            }
}

TEST_CASE("mma-k128 gives each lane its tensor-core fragment bytes", "[formats][layout]") {
    // Lane (g, t) of row group n8 and K chunk c holds, for each 32-wide block kb, the 4 bytes of
    // row n8*8+g at byte offset c*64 + kb*16 + 4t (kernel_templates/common/moe_gemm.h), each 4-byte
    // word in the kernels' e2m1 code (formats/e2m1_code.h).
    const int experts = 2, cols = 256;
    const auto fragment_source = [&](size_t out_offset) {
        const size_t per_chunk = 32 * 16, chunks = size_t(cols) / 128;
        const size_t n8 = out_offset / (chunks * per_chunk), c = out_offset / per_chunk % chunks;
        const size_t lane = out_offset / 16 % 32, kb = out_offset / 4 % 4, byte = out_offset % 4;
        return std::pair{n8 * 8 + lane / 4, c * 64 + kb * 16 + (lane % 4) * 4 + byte};
    };
    // down (w2): rows in order.
    {
        const int rows = 24;
        const ExpertWeightDims d{experts, rows, cols};
        const auto src = random_bytes(size_t(experts) * rows * cols / 2, 11);
        const auto out = lay_out_values(WeightLayout::mma_k128, WeightRole::down, d, src);
        REQUIRE(out.size() == src.size());
        const size_t per_expert = size_t(rows) * cols / 2;
        std::vector<uint8_t> want(out.size());
        for (size_t o = 0; o < out.size(); ++o) {
            const auto [row, k_byte] = fragment_source(o % per_expert);
            want[o] = src[(o / per_expert) * per_expert + row * size_t(cols / 2) + k_byte];
        }
        encode_e2m1_words(want);
        CHECK(out == want);
        CHECK(lay_out_scales(WeightLayout::mma_k128, WeightRole::down, d, random_bytes(size_t(experts) * rows * cols / 32, 12)) ==
              random_bytes(size_t(experts) * rows * cols / 32, 12));
    }
    // gate_up (w1): the fragment rows are the GUGU-interleaved rows.
    {
        const int inter = 32, rows = 2 * inter;
        const ExpertWeightDims d{experts, rows, cols};
        const auto src = random_bytes(size_t(experts) * rows * cols / 2, 13);
        const auto out = lay_out_values(WeightLayout::mma_k128, WeightRole::gate_up, d, src);
        const size_t per_expert = size_t(rows) * cols / 2;
        std::vector<uint8_t> want(out.size());
        for (size_t o = 0; o < out.size(); ++o) {
            const auto [gugu_row, k_byte] = fragment_source(o % per_expert);
            const size_t blk = gugu_row / 32, half = gugu_row / 16 % 2, r = gugu_row % 16;
            const size_t logical_row = half * inter + blk * 16 + r;
            want[o] = src[(o / per_expert) * per_expert + logical_row * size_t(cols / 2) + k_byte];
        }
        encode_e2m1_words(want);
        CHECK(out == want);
        const auto scales = random_bytes(size_t(experts) * rows * cols / 32, 14);
        CHECK(lay_out_scales(WeightLayout::mma_k128, WeightRole::gate_up, d, scales) ==
              lay_out_scales(WeightLayout::gate_up_interleaved, WeightRole::gate_up, d, scales));
    }
}

TEST_CASE("layouts reject shapes they cannot express", "[formats][layout]") {
    const auto scales = random_bytes(size_t(1) * 64 * 4, 9);  // K = 128: K/32 = 4, not a multiple of 8
    CHECK_THROWS_AS(lay_out_scales(WeightLayout::aiter_a16w4, WeightRole::gate_up, {1, 64, 128}, scales),
                    std::invalid_argument);
    const auto values = random_bytes(size_t(1) * 40 * 32, 10);  // inter 20: not a multiple of 16
    CHECK_THROWS_AS(lay_out_values(WeightLayout::gate_up_interleaved, WeightRole::gate_up, {1, 40, 64}, values),
                    std::invalid_argument);
    CHECK_THROWS_AS(lay_out_values(WeightLayout::logical, WeightRole::down, {1, 40, 64}, scales), std::invalid_argument);
}

TEST_CASE("weight layout names round-trip", "[formats][layout]") {
    for (WeightLayout l : kAllWeightLayouts) CHECK(parse_weight_layout(to_string(l)) == l);
    CHECK_THROWS_AS(parse_weight_layout("gugu"), moetune::InputError);
}
