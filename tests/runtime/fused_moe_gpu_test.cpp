// FusedMoe::run on synthetic data (tuner/data_gpu: seeded weights, hidden states and routing) for a
// small shape, at token counts that run the heuristic default and tuned rows of every kind (stage 1
// with fused or separate MXFP8 quantisation, stage 2 atomic or reduce), against the GPU reference
// MoE under the tuner's own gate (measure::judge_output with MeasureTask's metric and err_ratio);
// then the same calls captured in graphs and replayed.
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/mx_types.h"
#include "data/error_metrics.h"
#include "data/routing_generators.h"
#include "data_gpu/data_kernels.h"
#include "data_gpu/device_moe_data.h"
#include "data_gpu/mxfp8_quant_gpu.h"
#include "data_gpu/reference_moe_gpu.h"
#include "data_gpu/synthetic_inputs_gpu.h"
#include "gpu/device.h"
#include "gpu/graph.h"
#include "gpu/stream.h"
#include "measure/measure_task.h"
#include "measure/output_judge.h"
#include "moetune/fused_moe.h"
#include "rtc/kernel_cache.h"
#include "runtime_fixtures.h"
#include "support/catch.hpp"
#include "support/test_env.h"

using namespace moetune;

namespace {

constexpr uint64_t kSeed = 20261130;

// Small enough to check in seconds, large enough for several N tiles, K chunks and experts. topk 2:
// two bf16 atomic adds into a zeroed output give the same sum in either order (sm_90's red.bf16x2
// adds bf16-rounded values), so atomic outputs can be compared bit for bit across runs.
MoeShapeKey small_shape() { return test::shape_key(512, 256, 8, 2); }

data::MoeShape problem(int tokens) {
    const MoeShapeKey k = small_shape();
    return {tokens, k.model_dim, k.inter_dim, k.experts, k.topk};
}

FusedMoeOptions options() {
    FusedMoeOptions o;
    o.cache_dir = MOETUNE_TEST_KERNEL_CACHE;
    return o;
}

// Rows for this device: bucket 8 fuses stage 1's quantisation and walks each 32-row sort block as
// two 16-row stage-2 tiles; bucket 16 quantises separately and then widens the result for a stage 2
// that reads pre-widened activations; bucket 64 quantises separately and reduces; on sm_90a,
// bucket 128 runs the FP8 warpgroup-product kernels on rebased rows (weights rebased by the
// caller, activations inside run), bucket 32 register-fed FP8 warpgroup kernels in both stages
// (w1 and w2 in the e4m3 code from the caller, rows rebased with interleaved words inside run),
// bucket 256 the warp-specialised kernels on rebased weights (64 x 256, stage 2 atomic) and bucket
// 512 those that read FP4 weight blocks from the caller and rebase them themselves (_f4w, 128 x 256,
// stage 2 reduce, copying the weights of an expert's only row tile evict-first: _ro; at 300 tokens an
// expert's ~75 rows are one such tile); bucket 4 the register-fed kernels on MXFP8 rows, stage 1
// writing them with its fused epilogue (nothing between the stages), and bucket 2 those kernels in
// both stages after the quantisation of the hidden states and of stage 1's bf16 output to interleaved
// MXFP8. Other buckets: the default (whose bf16-path kernels read
// widened activations, stage 1 writing them fused).
bool has_fp8_row(const gpu::DeviceInfo& d) { return d.arch == "sm_90a"; }

std::string tuned_table(const gpu::DeviceInfo& d) {
    // A row: the key and shape at `tokens`, block_m, the two kernels (names after the common prefix of
    // each stage), no timings.
    auto row = [&](int tokens, int block_m, const std::string& kernel1, const std::string& kernel2) {
        return d.gfx + "," + std::to_string(d.cu_num) + "," + std::to_string(tokens) +
               ",512,256,8,2,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,torch.float4_e2m1fn_x2,"
               "QuantType.per_1x32,1,0," +
               std::to_string(block_m) + ",0,,moetune_moe1_afp8_wfp4_bf16_" + kernel1 +
               ",,,moetune_moe2_afp8_wfp4_bf16_" + kernel2 + ",,,0,0,0,,\n";
    };
    return "gfx,cu_num,token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,q_type,use_g1u1,"
           "doweight_stage1,block_m,ksplit,us1,kernelName1,err1,us2,kernelName2,err2,us,run_1stage,xbf16,flat,"
           "tflops,bw\n" +
           row(8, 32, "t32x128x128_w4_gui_fp8", "t16x128x256_atomic_sbm32") +
           row(16, 32, "t32x128x128_w4_mbf16_gui", "t32x128x128_atomic_w4_mbf16") +
           row(64, 32, "t32x128x256_w4_gui", "t32x128x256_reduce") +
           (has_fp8_row(d)
                ? row(128, 64, "t64x128x128_w4_smem_wgmma_gui_fp8", "t64x128x128_atomic_w4_smem_wgmma") +
                      row(32, 32, "t32x128x256_nt_wgmma_gui", "t32x128x256_atomic_nt_wgmma") +
                      row(256, 64, "t64x256x128_w12_smem_wgmma_ws_gui_fp8", "t64x256x128_atomic_w12_smem_wgmma_ws") +
                      row(512, 128, "t128x256x128_w12_smem_wgmma_ws_f4w_gui_fp8",
                          "t128x256x128_reduce_w12_smem_wgmma_ws_f4w_ro") +
                      row(4, 16, "t16x64x256_w4_nt_wgmma_gui_fp8", "t16x128x256_atomic_nt_wgmma_mxr") +
                      row(2, 16, "t16x64x512_w4_nt_wgmma_mxr_gui", "t16x64x256_atomic_w4_nt_wgmma_mxr")
                : std::string());
}

// Kernels, weights in both layouts, and the FusedMoe under test, made once per test binary.
struct Setup {
    Setup()
        : cache(MOETUNE_TEST_KERNEL_CACHE),
          kernels(&cache),
          logical(data::generate_synthetic_weights_gpu(kernels, problem(1), kSeed, stream)),
          table_dir("runtime_gpu") {
        const ExpertWeightBytes bytes = FusedMoe::weight_bytes(small_shape());
        REQUIRE(bytes.w1 == logical.w1.size());
        REQUIRE(bytes.w1_scale == logical.w1_scale.size());
        REQUIRE(bytes.w2 == logical.w2.size());
        REQUIRE(bytes.w2_scale == logical.w2_scale.size());
        laid_out = {gpu::DeviceBuffer<uint8_t>(bytes.w1), gpu::DeviceBuffer<uint8_t>(bytes.w1_scale),
                    gpu::DeviceBuffer<uint8_t>(bytes.w2), gpu::DeviceBuffer<uint8_t>(bytes.w2_scale)};
        const ExpertWeights from{logical.w1.data(), logical.w1_scale.data(), logical.w2.data(),
                                 logical.w2_scale.data()};
        const ExpertWeightsOut to{laid_out.w1.data(), laid_out.w1_scale.data(), laid_out.w2.data(),
                                  laid_out.w2_scale.data()};
        FusedMoe::lay_out_weights(small_shape(), from, to, stream.native(), options());
        const RebasedWeightBytes rebased_bytes = FusedMoe::rebased_weight_bytes(small_shape());
        rebased = {gpu::DeviceBuffer<uint8_t>(rebased_bytes.w1), gpu::DeviceBuffer<uint8_t>(rebased_bytes.w1_base),
                   gpu::DeviceBuffer<uint8_t>(rebased_bytes.w2), gpu::DeviceBuffer<uint8_t>(rebased_bytes.w2_base)};
        FusedMoe::rebase_weights(small_shape(), {to.w1, to.w1_scale, to.w2, to.w2_scale},
                                 {rebased.w1.data(), rebased.w1_scale.data(), rebased.w2.data(),
                                  rebased.w2_scale.data()},
                                 stream.native(), options());
        w1_e4m3_coded = gpu::DeviceBuffer<uint8_t>(bytes.w1);
        w2_e4m3_coded = gpu::DeviceBuffer<uint8_t>(bytes.w2);
        FusedMoe::code_weights_e4m3(small_shape(), from, {w1_e4m3_coded.data(), w2_e4m3_coded.data()}, stream.native(),
                                    options());
        const Fp4WeightBlockBytes fp4_bytes = FusedMoe::fp4_weight_block_bytes(small_shape());
        fp4 = {gpu::DeviceBuffer<uint8_t>(fp4_bytes.w1), gpu::DeviceBuffer<uint8_t>(fp4_bytes.w1_base),
               gpu::DeviceBuffer<uint8_t>(fp4_bytes.w2), gpu::DeviceBuffer<uint8_t>(fp4_bytes.w2_base)};
        FusedMoe::fp4_weight_blocks(small_shape(), {to.w1, to.w1_scale, to.w2, to.w2_scale},
                                    {fp4.w1.data(), fp4.w1_scale.data(), fp4.w2.data(), fp4.w2_scale.data()},
                                    stream.native(), options());
        const std::string path = (table_dir / "tuned.csv").string();
        std::ofstream(path) << tuned_table(gpu::device_info(gpu::current_device()));
        moe = std::make_unique<FusedMoe>(small_shape(), TunedTables::load({path}), options());
    }

    rtc::KernelCache cache;
    data::DataKernels kernels;
    gpu::Stream stream;
    data::DeviceMoeWeights logical;
    data::DeviceMoeWeights laid_out;
    data::DeviceMoeWeights rebased;  // rebased rows in w1/w2, their bases in w1_scale/w2_scale
    data::DeviceMoeWeights fp4;      // FP4 blocks in w1/w2, their bases (the rebased ones') in w1_scale/w2_scale
    gpu::DeviceBuffer<uint8_t> w1_e4m3_coded, w2_e4m3_coded;
    test::TempDir table_dir;
    std::unique_ptr<FusedMoe> moe;
};

Setup& setup() {
    static Setup s;
    return s;
}

// One call's inputs and output at `tokens` (routed with seed kSeed + tokens + routing), with the
// reference output.
struct Call {
    explicit Call(int tokens, int routing_index = 0)
        : routing(data::upload(data::random_routing(tokens, problem(tokens).experts, problem(tokens).topk,
                                                    kSeed + tokens + uint64_t(routing_index)))),
          out(std::size_t(tokens) * problem(tokens).model_dim) {
        Setup& s = setup();
        const data::MoeShape shape = problem(tokens);
        // Synthetic hidden states are bf16 values held as floats: their bf16 bits are exact.
        std::vector<uint16_t> bits;
        for (float x : data::generate_synthetic_hidden_gpu(s.kernels, shape, kSeed, s.stream).download())
            bits.push_back(mx_float_to_bf16(x));
        hidden = gpu::DeviceBuffer<uint16_t>(std::span<const uint16_t>(bits));

        // The reference on the same MXFP8 activations, and stage 2 on stage 1's bf16-rounded output
        // quantised as AITER's unfused path does.
        const data::DeviceMxfpMatrix act =
            data::quantize_mxfp8_gpu(s.kernels, hidden, tokens, shape.model_dim, formats::ActivationScales::mxfp8,
                                     s.stream);
        const gpu::DeviceBuffer<float> stage1 =
            data::reference_stage1_gpu(s.kernels, shape, act, s.logical, routing, s.stream);
        const data::DeviceMxfpMatrix inter =
            data::quantize_mxfp8_gpu(s.kernels, stage1, tokens * shape.topk, shape.inter_dim,
                                     formats::ActivationScales::mxfp8, data::Bf16Rounding::to_bf16_first, s.stream);
        reference = data::reference_stage2_gpu(s.kernels, shape, inter, s.logical, routing, s.stream).download();
    }

    FusedMoeArgs args() const {
        const data::DeviceMoeWeights& w = setup().laid_out;
        const data::DeviceMoeWeights& r = setup().rebased;
        return {routing.tokens, hidden.data(), routing.ids.data(), routing.weights.data(), w.w1.data(),
                w.w1_scale.data(), w.w2.data(), w.w2_scale.data(), out.data(), r.w1.data(),
                r.w1_scale.data(), r.w2.data(), r.w2_scale.data(), setup().w2_e4m3_coded.data(),
                setup().w1_e4m3_coded.data(), setup().fp4.w1.data(), setup().fp4.w2.data()};
    }

    std::vector<float> output() const {
        std::vector<float> values;
        for (uint16_t b : out.download()) values.push_back(mx_bf16_to_float(b));
        return values;
    }

    data::DeviceRouting routing;
    gpu::DeviceBuffer<uint16_t> hidden;
    gpu::DeviceBuffer<uint16_t> out;
    std::vector<float> reference;
};

measure::Judgement judge(const Call& call) {
    const measure::MeasureTask gate;  // the tuner's defaults
    // zero_start: a token whose output row stays zero fails, whichever way stage 2 writes.
    return measure::judge_output(call.reference, call.output(), std::size_t(small_shape().model_dim),
                                 data::parse_error_metric(gate.metric), gate.err_ratio, true);
}

}  // namespace

TEST_CASE("FusedMoe::run matches the reference MoE with the default and with tuned rows of every kind",
          "[gpu][runtime]") {
    FusedMoe& moe = *setup().moe;
    const bool fp8 = has_fp8_row(gpu::device_info(gpu::current_device()));
    const std::map<int, bool> tuned_at = {{1, false},   {2, fp8},   {3, fp8},   {5, true},  {12, true}, {20, fp8},
                                          {64, true},   {100, fp8}, {200, fp8}, {300, fp8}};
    moe.prepare(300);
    CHECK(moe.prepared_tokens() == 300);
    CHECK(moe.reads_rebased_weights() == fp8);
    CHECK(moe.reads_e4m3_coded_weights() == fp8);
    CHECK(moe.reads_fp4_weight_blocks() == fp8);
    for (const auto& [tokens, tuned] : tuned_at) {
        const KernelPlan plan = moe.plan(tokens);
        INFO(tokens << " tokens: " << plan.kernel_name1 << " + " << plan.kernel_name2 << " from " << plan.source);
        CHECK(plan.tuned == tuned);
        Call call(tokens);
        call.out.fill_bytes(0xFF);  // NaN: an element run() does not write fails the judgement
        moe.run(call.args(), setup().stream.native());
        setup().stream.synchronize();
        const measure::Judgement j = judge(call);
        INFO("err " << j.err << " " << j.failure);
        CHECK(j.ok);
    }
    Call beyond(301);
    CHECK_THROWS_AS(moe.run(beyond.args(), setup().stream.native()), std::invalid_argument);
    Call shifted(5);  // an output view that does not start on a 16-byte boundary
    FusedMoeArgs shifted_args = shifted.args();
    shifted_args.out = static_cast<uint16_t*>(shifted_args.out) + 1;
    CHECK_THROWS_WITH(moe.run(shifted_args, setup().stream.native()),
                      Catch::Matchers::ContainsSubstring("out must be 16-byte aligned"));
    if (fp8) {  // the FP8 row's bucket without the rebased weights: refused, naming them
        Call call(100);
        FusedMoeArgs args = call.args();
        args.w1_rebased = nullptr;
        CHECK_THROWS_WITH(moe.run(args, setup().stream.native()), Catch::Matchers::ContainsSubstring("w1_rebased"));
        Call fp4_blocks(300);  // the _f4w row's bucket without its FP4 blocks: refused, naming them
        for (const bool stage1 : {true, false}) {
            FusedMoeArgs without_blocks = fp4_blocks.args();
            (stage1 ? without_blocks.w1_fp4_blocks : without_blocks.w2_fp4_blocks) = nullptr;
            CHECK_THROWS_WITH(moe.run(without_blocks, setup().stream.native()),
                              Catch::Matchers::ContainsSubstring(stage1 ? "w1_fp4_blocks" : "w2_fp4_blocks"));
        }
        Call register_fed(20);
        for (const bool stage1 : {true, false}) {
            FusedMoeArgs without_code = register_fed.args();
            (stage1 ? without_code.w1_e4m3_coded : without_code.w2_e4m3_coded) = nullptr;
            CHECK_THROWS_WITH(moe.run(without_code, setup().stream.native()),
                              Catch::Matchers::ContainsSubstring(stage1 ? "w1_e4m3_coded" : "w2_e4m3_coded"));
        }
    }
}

TEST_CASE("FusedMoe::run captured in a graph gives the eager output on every replay", "[gpu][runtime]") {
    FusedMoe& moe = *setup().moe;
    const gpu::Stream& stream = setup().stream;
    moe.prepare(300);
    for (int tokens : {5, 20, 64, 200, 300}) {
        INFO(tokens << " tokens: " << moe.plan(tokens).kernel_name2);
        Call call(tokens);
        moe.run(call.args(), stream.native());
        stream.synchronize();
        const std::vector<uint16_t> eager = call.out.download();
        const gpu::Graph graph = gpu::Graph::capture(stream, [&] { moe.run(call.args(), stream.native()); });
        for (int replay = 0; replay < 3; ++replay) {
            call.out.fill_bytes(0xFF);
            graph.replay(stream);
            stream.synchronize();
            CHECK(call.out.download() == eager);
        }
        CHECK(judge(call).ok);
    }
}

// A model calls the MoE layer after layer with new routings. Launches that overlap their
// predecessors must not let one call read a table the next call's sort is rewriting: calls on four
// routings back to back in one graph, each with its own output, give each call's eager output.
TEST_CASE("FusedMoe calls back to back on different routings each give their own output", "[gpu][runtime]") {
    FusedMoe& moe = *setup().moe;
    const gpu::Stream& stream = setup().stream;
    moe.prepare(300);
    for (int tokens : {1, 5, 20, 64, 100, 300}) {
        INFO(tokens << " tokens: " << moe.plan(tokens).kernel_name1 << " + " << moe.plan(tokens).kernel_name2);
        std::vector<std::unique_ptr<Call>> calls;
        std::vector<std::vector<uint16_t>> eager;
        for (int r = 0; r < 4; ++r) {
            calls.push_back(std::make_unique<Call>(tokens, r));
            moe.run(calls.back()->args(), stream.native());
            stream.synchronize();
            eager.push_back(calls.back()->out.download());
        }
        const gpu::Graph graph = gpu::Graph::capture(stream, [&] {
            for (const auto& call : calls) moe.run(call->args(), stream.native());
        });
        for (int replay = 0; replay < 3; ++replay) {
            for (const auto& call : calls) call->out.fill_bytes(0xFF);
            graph.replay(stream);
            stream.synchronize();
            for (std::size_t r = 0; r < calls.size(); ++r) {
                INFO("routing " << r << ", replay " << replay);
                CHECK(calls[r]->out.download() == eager[r]);
            }
        }
    }
}

namespace {

// The shared FusedMoe's output against one built with `other` options (an option that changes how, not what, it
// computes): the same bits at each token count, and judged against the reference.
void check_same_output_with(const FusedMoeOptions& other) {
    FusedMoe& shared = *setup().moe;
    FusedMoe changed(small_shape(), TunedTables::load({(setup().table_dir / "tuned.csv").string()}), other);
    shared.prepare(300);
    changed.prepare(300);
    const gpu::Stream& stream = setup().stream;
    // The default, a widened tuned row, a reducing one; on sm_90a register-fed FP8 kernels in both
    // stages and the FP8 warpgroup kernels.
    for (int tokens : {1, 12, 64, 20, 100}) {
        INFO(tokens << " tokens: " << changed.plan(tokens).kernel_name1 << " + " << changed.plan(tokens).kernel_name2);
        Call call(tokens);
        shared.run(call.args(), stream.native());
        stream.synchronize();
        const std::vector<uint16_t> expected = call.out.download();
        call.out.fill_bytes(0xFF);
        changed.run(call.args(), stream.native());
        stream.synchronize();
        CHECK(call.out.download() == expected);
        CHECK(judge(call).ok);
    }
}

}  // namespace

TEST_CASE("FusedMoe with overlap_launches off gives the overlapped launches' output", "[gpu][runtime]") {
    FusedMoeOptions serial = options();
    serial.overlap_launches = false;
    check_same_output_with(serial);
}

// (The small shape's stage-2 weights fit in L2 at every count above: with the option on its register-fed stage 1s ask
// for them.)
TEST_CASE("FusedMoe with l2_stage2_weights on gives the output of stage 2 streaming its weights", "[gpu][runtime]") {
    FusedMoeOptions asked = options();
    asked.l2_stage2_weights = true;
    check_same_output_with(asked);
}
