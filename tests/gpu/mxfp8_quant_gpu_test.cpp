// GPU MXFP8 quantisation is bit-exact with the CPU's: both scale rules, float and bf16 input, the
// bf16 rounding of the stage-1 output, the wide layout, and blocks holding the awkward values (zeros,
// NaN, Inf, subnormals, values beyond e4m3's range, -0).
#include <cmath>
#include <limits>
#include <vector>

#include "common/mx_types.h"
#include "common/synthetic.h"
#include "data/mx_matrix.h"
#include "data/reference_moe.h"
#include "data_gpu/mxfp8_quant_gpu.h"
#include "data_gpu/mxfp8_rebase_gpu.h"
#include "data_gpu/mxfp8_widen_gpu.h"
#include "formats/bf16_vector.h"
#include "formats/mx_quantize.h"
#include "formats/mx_rebase.h"
#include "gpu/stream.h"
#include "data_gpu_fixture.h"
#include "support/catch.hpp"

using namespace moetune;
using formats::ActivationScales;
using moetune::test::first_difference;

namespace {

// [rows, cols] values over many binades, with special blocks at the start of some rows.
std::vector<float> awkward_rows(int rows, int cols) {
    std::vector<float> x(std::size_t(rows) * cols);
    for (std::size_t i = 0; i < x.size(); ++i) {
        const unsigned h = mx_synth_hash(test::kSeed, 99, i);
        const float unit = mx_synth_hidden(test::kSeed, i);  // in (-2, 2)
        x[i] = std::ldexp(unit, int(h % 40) - 20);           // 2^-20 .. 2^19
    }
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    auto block = [&](int row) { return x.data() + std::size_t(row) * cols; };
    for (int i = 0; i < 32; ++i) block(0)[i] = 0.0f;
    block(1)[5] = nan;
    block(2)[31] = -inf;
    for (int i = 0; i < 32; ++i) block(3)[i] = std::numeric_limits<float>::denorm_min() * float(i);
    block(4)[0] = 1e30f;
    block(5)[7] = -0.0f;
    // NaN payloads decide the scale byte (0x7FFFFFFF rounds to exponent field 0, a quiet NaN to
    // 255): a negative NaN, a payload NaN, and a block whose first NaN is not its last.
    block(6)[3] = -nan;
    block(7)[3] = mx_float_of(0x7FFFFFFFu);
    block(8)[2] = nan;
    block(8)[9] = mx_float_of(0x7FFFFFFFu);
    return x;
}

// awkward_rows rounded to bf16: the bit patterns, and their values as floats (what the CPU quantises).
struct Bf16Rows {
    std::vector<uint16_t> bits;
    std::vector<float> values;
};
Bf16Rows awkward_bf16_rows(int rows, int cols) {
    const std::vector<float> x = awkward_rows(rows, cols);
    Bf16Rows out{std::vector<uint16_t>(x.size()), std::vector<float>(x.size())};
    for (std::size_t i = 0; i < x.size(); ++i) {
        out.bits[i] = mx_float_to_bf16(x[i]);
        out.values[i] = mx_bf16_to_float(out.bits[i]);
    }
    return out;
}

// The CPU's wide layout of m, as floats.
std::vector<float> widened_on_cpu(const data::MxfpMatrix& m) {
    std::vector<uint16_t> wide(m.values.size());
    formats::widen_mxfp8(m.values, m.scales, m.rows, m.cols, wide);
    return formats::bf16_to_floats(wide);
}

void check_same(const data::MxfpMatrix& cpu, const data::MxfpMatrix& gpu) {
    CHECK(gpu.rows == cpu.rows);
    CHECK(gpu.cols == cpu.cols);
    CHECK(first_difference(cpu.scales, gpu.scales, "scales") == "");
    CHECK(first_difference(cpu.values, gpu.values, "values") == "");
}

}  // namespace

TEST_CASE("GPU MXFP8 quantisation of floats equals the CPU's", "[gpu][quant]") {
    const int rows = 64, cols = 2304;
    const std::vector<float> x = awkward_rows(rows, cols);
    for (auto mode : {ActivationScales::mxfp8, ActivationScales::unit}) {
        INFO("scales " << formats::to_string(mode));
        check_same(data::quantize_mxfp8_matrix(x, rows, cols, mode),
                   data::quantize_mxfp8_gpu(test::data_kernels(), x, rows, cols, mode, data::Bf16Rounding::none));
    }
}

TEST_CASE("GPU MXFP8 quantisation with bf16 rounding equals quantize_stage1_output", "[gpu][quant]") {
    const data::MoeShape shape{33, 5120, 2304, 96, 5};
    const int rows = shape.tokens * shape.topk;
    const std::vector<float> x = awkward_rows(rows, shape.inter_dim);
    for (auto mode : {ActivationScales::mxfp8, ActivationScales::unit}) {
        INFO("scales " << formats::to_string(mode));
        check_same(data::quantize_stage1_output(shape, x, mode),
                   data::quantize_mxfp8_gpu(test::data_kernels(), x, rows, shape.inter_dim, mode,
                                            data::Bf16Rounding::to_bf16_first));
    }
}

TEST_CASE("GPU MXFP8 quantisation of bf16 input equals the CPU's on the same values", "[gpu][quant]") {
    const int rows = 16, cols = 5120;
    const Bf16Rows x = awkward_bf16_rows(rows, cols);
    for (auto mode : {ActivationScales::mxfp8, ActivationScales::unit}) {
        INFO("scales " << formats::to_string(mode));
        check_same(data::quantize_mxfp8_matrix(x.values, rows, cols, mode),
                   data::quantize_mxfp8_gpu(test::data_kernels(), std::span<const uint16_t>(x.bits), rows, cols, mode));
    }
}

// The wide layout the bf16 path's register-fed and _wgmma kernels read (mxfp8_widen.hip): the device's packed
// bf16 multiplies give the host's bits (compared as floats, so NaNs of any payload match).
TEST_CASE("GPU widening of MXFP8 equals the CPU's", "[gpu][quant]") {
    const int rows = 64, cols = 2304;
    const data::MxfpMatrix m = data::quantize_mxfp8_matrix(awkward_rows(rows, cols), rows, cols, ActivationScales::mxfp8);
    const gpu::Stream stream;
    const gpu::DeviceBuffer<uint16_t> wide = data::widen_mxfp8_gpu(test::data_kernels(), data::upload(m), stream);
    stream.synchronize();
    CHECK(first_difference(widened_on_cpu(m), formats::bf16_to_floats(wide.download()), "wide") == "");
}

// The rebased rows the FP8 _wgmma kernels read (mxfp8_rebase.hip), bit for bit the CPU's, on rows
// whose blocks span 40 binades (so most rows rebase blocks far below their largest) and hold NaNs;
// in element order and with the register-fed kernels' interleaved words.
TEST_CASE("GPU rebasing of MXFP8 equals the CPU's", "[gpu][quant]") {
    for (const auto& [rows, cols] : {std::pair{64, 2304}, std::pair{37, 5120}})
    for (const bool interleave : {false, true}) {
        INFO("interleaved " << interleave);
        const data::MxfpMatrix m =
            data::quantize_mxfp8_matrix(awkward_rows(rows, cols), rows, cols, ActivationScales::mxfp8);
        std::vector<uint8_t> rebased(m.values.size()), bases(static_cast<std::size_t>(rows));
        formats::rebase_mxfp8(m.values, m.scales, rows, cols, rebased, bases, interleave);
        const gpu::Stream stream;
        const data::DeviceRebasedMatrix gpu_rebased =
            data::rebase_mxfp8_gpu(test::data_kernels(), data::upload(m), stream, interleave);
        stream.synchronize();
        CHECK(first_difference(bases, gpu_rebased.bases.download(), "bases") == "");
        CHECK(first_difference(rebased, gpu_rebased.values.download(), "values") == "");
    }
}

// The one-pass quantisation to the wide layout (mxfp8_quant_wide) writes what quantising and then
// widening give on the CPU, on bf16 rows with the awkward blocks.
TEST_CASE("GPU MXFP8 quantisation straight to the wide layout equals quantise then widen on the CPU", "[gpu][quant]") {
    const int rows = 48, cols = 5120;
    const Bf16Rows x = awkward_bf16_rows(rows, cols);
    const data::MxfpMatrix m = data::quantize_mxfp8_matrix(x.values, rows, cols, ActivationScales::mxfp8);
    const gpu::Stream stream;
    const gpu::DeviceBuffer<uint16_t> input(x.bits);
    gpu::DeviceBuffer<uint16_t> wide(x.bits.size());
    data::enqueue_quantize_mxfp8_bf16_wide(test::data_kernels(), input.data(), x.bits.size() / 32, wide.data(), stream);
    stream.synchronize();
    CHECK(first_difference(widened_on_cpu(m), formats::bf16_to_floats(wide.download()), "wide") == "");
}

// The one-pass quantisation to rebased rows (mxfp8_quant_rebased) writes what quantising and then
// rebasing give on the CPU, bit for bit, on bf16 rows with the awkward blocks: the model width of
// the DSv4.1 shapes (two groups a lane, 320 threads) and their intermediate width (one group a
// lane), the widest row it takes (two groups, 1024 threads) and a row of three blocks (one warp,
// most lanes idle); in element order and interleaved. (9 rows at least:
// awkward_rows puts its special blocks in rows 0-8.)
TEST_CASE("GPU MXFP8 quantisation straight to rebased rows equals quantise then rebase on the CPU", "[gpu][quant]") {
    for (const auto& [rows, cols] : {std::pair{48, 5120}, std::pair{37, 2304}, std::pair{9, 16384}, std::pair{9, 96}})
    for (const bool interleave : {false, true}) {
        INFO(rows << " x " << cols << ", interleaved " << interleave);
        const Bf16Rows x = awkward_bf16_rows(rows, cols);
        const data::MxfpMatrix m = data::quantize_mxfp8_matrix(x.values, rows, cols, ActivationScales::mxfp8);
        std::vector<uint8_t> rebased(m.values.size()), bases(static_cast<std::size_t>(rows));
        formats::rebase_mxfp8(m.values, m.scales, rows, cols, rebased, bases, interleave);
        const gpu::Stream stream;
        const gpu::DeviceBuffer<uint16_t> input(x.bits);
        gpu::DeviceBuffer<uint8_t> gpu_rebased(rebased.size()), gpu_bases(bases.size());
        gpu_rebased.fill_bytes(0x7F);  // e4m3 NaN: a byte left unwritten shows
        data::enqueue_quantize_mxfp8_bf16_rebased(test::data_kernels(), input.data(), rows, cols, gpu_rebased.data(),
                                                  gpu_bases.data(), stream, interleave);
        stream.synchronize();
        CHECK(first_difference(bases, gpu_bases.download(), "bases") == "");
        CHECK(first_difference(rebased, gpu_rebased.download(), "values") == "");
    }
    const gpu::DeviceBuffer<uint16_t> input(16416);
    gpu::DeviceBuffer<uint8_t> out(16416), base(1);
    for (const int cols : {16416, 40, 0})
        CHECK_THROWS_AS(data::enqueue_quantize_mxfp8_bf16_rebased(test::data_kernels(), input.data(), 1, cols, out.data(),
                                                                  base.data(), gpu::Stream(), false),
                        std::invalid_argument);
}

TEST_CASE("GPU MXFP8 quantisation rejects a shape that does not match its input", "[gpu][quant]") {
    const std::vector<float> x(64 * 32);
    CHECK_THROWS_AS(
        data::quantize_mxfp8_gpu(test::data_kernels(), x, 64, 33, ActivationScales::mxfp8, data::Bf16Rounding::none),
        std::invalid_argument);
    CHECK_THROWS_AS(
        data::quantize_mxfp8_gpu(test::data_kernels(), x, 65, 32, ActivationScales::mxfp8, data::Bf16Rounding::none),
        std::invalid_argument);
}
