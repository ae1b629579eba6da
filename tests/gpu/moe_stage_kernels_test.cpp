// The candidate kernels themselves (kernel_templates/moe_stage1.hip, moe_stage2.hip, moe_reduce.hip)
// against the CPU reference, on a small shape where the reference is exact and fast: each config
// family (tile_m, warp grid, K prefetch depth, non-temporal loads, fused MXFP8 out, atomic/reduce,
// half sort block) once on each tensor-core path (FP8, bf16), plus the deliberately wrong variant,
// which must fail. The bf16 path's register-fed kernels get their activations in the wide layout,
// widened on the host (formats::widen_mxfp8). The measurement harness checks the full candidate space
// at DSv4.1 size; this test pins the kernels' arithmetic.
#include <cstring>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/fp4_weight_blocks.h"
#include "data/error_metrics.h"
#include "data/moe_sorting.h"
#include "data/reference_moe.h"
#include "data/routing_generators.h"
#include "data/synthetic_inputs.h"
#include "formats/f16_gemv_layout.h"
#include "formats/mx_quantize.h"
#include "formats/weight_layout.h"
#include "gpu/device.h"
#include "gpu/device_buffer.h"
#include "gpu/module.h"
#include "gpu/stream.h"
#include "kernels/compile_definitions.h"
#include "kernels/kernel_name.h"
#include "kernels/launch_geometry.h"
#include "rtc/compile_request.h"
#include "rtc/compiler.h"
#include "common/moe_args.h"
#include "common/mx_bf16_widen.h"
#include "common/shared_operand_layout.h"
#include "formats/mx_rebase.h"
#include "common/mx_types.h"
#include "support/catch.hpp"

namespace {
using namespace moetune;
using kernels::KernelConfig;

// K of both stages a multiple of 128 (the kernels' K chunk); 37 tokens leave ragged sort blocks.
const data::MoeShape kShape{.tokens = 37, .model_dim = 512, .inter_dim = 256, .experts = 8, .topk = 2};
// Stage 1's K as long as DSv4.1-Flash's and then one chunk (41 chunks of 128), stage 2's 3 chunks: odd
// counts, where the FP8 loop's alternating partial-sum sets end on the first set.
const data::MoeShape kLongKShape{.tokens = 37, .model_dim = 41 * 128, .inter_dim = 3 * 128, .experts = 8, .topk = 2};
constexpr uint64_t kSeed = 7;

std::vector<float> bf16_to_floats(const std::vector<uint16_t>& v) {
    std::vector<float> out(v.size());
    for (size_t i = 0; i < v.size(); ++i) out[i] = mx_bf16_to_float(v[i]);
    return out;
}

// m in the wide layout that kernels::reads_wide_activations kernels read, widened on the host.
std::vector<uint16_t> wide_of(const data::MxfpMatrix& m) {
    std::vector<uint16_t> wide(m.values.size());
    formats::widen_mxfp8(m.values, m.scales, m.rows, m.cols, wide);
    return wide;
}

// m rebased (one base per row) as kernels::reads_rebased_rows kernels read it, on the host.
struct Rebased {
    std::vector<uint8_t> values, bases;
};
Rebased rebased_of(const data::MxfpMatrix& m, bool interleave_words = false) {
    Rebased r{std::vector<uint8_t>(m.values.size()), std::vector<uint8_t>(static_cast<size_t>(m.rows))};
    formats::rebase_mxfp8(m.values, m.scales, m.rows, m.cols, r.values, r.bases, interleave_words);
    return r;
}

// A wide-layout matrix back in element order, as floats.
std::vector<float> floats_of_wide(const std::vector<uint16_t>& wide) {
    std::vector<float> out(wide.size());
    for (size_t i = 0; i < wide.size(); ++i) out[i] = mx_bf16_to_float(wide[i / 8 * 8 + size_t(mx_wide_position(int(i % 8)))]);
    return out;
}

// Every scale byte of `scales` raised by `by` (x 2^by). All of them, so that sums do not mix
// magnitudes, which would make the elementwise metric judge the summation order.
void raise_scales(std::vector<uint8_t>& scales, int by) {
    for (uint8_t& s : scales) s = uint8_t(s + by);
}

// Block scales of the weights spread over 14 octaves within every row (offsets -7..6 in turn), so
// that rebasing to a row's largest scale shifts blocks by 0..13: every row of the FP4 table
// (mx_e2m1_e4m3_lut.h), the e4m3 subnormals and the bits lost below them.
void spread_scales(std::vector<uint8_t>& scales) {
    for (std::size_t i = 0; i < scales.size(); ++i) scales[i] = uint8_t(int(scales[i]) + int(i % 14) - 7);
}

// Everything of a shape on the host: inputs, the kernel layouts, references. With large_scales the
// weight scales are 2^9 larger (bytes 128..132, most above 128) and the activation scales 2^16
// (quantised hidden states have bytes ~120, so ~136, above 134, and the stage-1 outputs more):
// the values that take the exact widening paths (mx_bf16_widen.h). With spread_weight_scales the
// weights' scales are spread_scales'. routing: the random one of the seed where none is given.
struct Problem {
    Problem(const data::MoeShape& moe, bool large_scales, bool spread_weight_scales = false,
            std::optional<data::Routing> given = {})
        : shape(moe),
          weights(make_weights(moe, large_scales, spread_weight_scales)),
          act(make_acts(moe, large_scales)),
          routing(given ? std::move(*given) : data::random_routing(moe.tokens, moe.experts, moe.topk, kSeed)) {}

    data::MoeShape shape;
    data::MoeWeights weights;
    data::MxfpMatrix act;
    data::Routing routing;
    std::vector<float> ref1 = data::reference_stage1(shape, act, weights, routing);
    data::MxfpMatrix act2 = data::quantize_stage1_output(shape, ref1, formats::ActivationScales::mxfp8);
    std::vector<float> ref2 = data::reference_stage2(shape, act2, weights, routing);
    // What kernels that read the wide layout get as each stage's input.
    std::vector<uint16_t> act_wide = wide_of(act), act2_wide = wide_of(act2);
    // And what kernels that read rebased rows get as act and act_scale.
    Rebased act_rebased = rebased_of(act), act2_rebased = rebased_of(act2);
    // And the register-fed FP8 kernels (kernels::reads_interleaved_rows).
    Rebased act_interleaved = rebased_of(act, true), act2_interleaved = rebased_of(act2, true);

    // What a kernel of config c reads as w and w_scale (kernels::weight_copy): the kernel layout, its
    // rebased copy (values, bases), its values in the e4m3 code with the layout's scales, its FP4
    // blocks with the rebased copy's bases, or the _gemv kernels' f16 tiles.
    std::pair<std::vector<uint8_t>, std::vector<uint8_t>> weight_input(const KernelConfig& c) const {
        const formats::WeightRole role = c.stage == kernels::Stage::gate_up ? formats::WeightRole::gate_up
                                                                             : formats::WeightRole::down;
        const std::vector<uint8_t>& logical = role == formats::WeightRole::gate_up ? weights.w1 : weights.w2;
        const std::vector<uint8_t>& logical_scale = role == formats::WeightRole::gate_up ? weights.w1_scale : weights.w2_scale;
        const formats::ExpertWeightDims d = dims(role);
        std::vector<uint8_t> scales = layout(logical_scale, role, true);
        switch (kernels::weight_copy(c)) {
            case kernels::WeightCopy::coded_fp4: return {layout(logical, role, false), std::move(scales)};
            case kernels::WeightCopy::rebased_e4m3: {
                Rebased r{std::vector<uint8_t>(size_t(d.experts) * d.rows * d.cols), std::vector<uint8_t>(size_t(d.experts) * d.rows)};
                formats::rebase_coded_weights(layout(logical, role, false), scales, d.experts * d.rows, d.cols, r.values, r.bases);
                return {std::move(r.values), std::move(r.bases)};
            }
            case kernels::WeightCopy::e4m3_coded_fp4:
                return {formats::lay_out_values(formats::WeightLayout::mma_k128, role, d, logical, formats::e2m1_e4m3_code()),
                        std::move(scales)};
            case kernels::WeightCopy::fp4_blocks: {
                const std::size_t rows = size_t(d.experts) * d.rows;
                Rebased r{std::vector<uint8_t>(rows * size_t(mx_fp4_blocks_row_bytes(d.cols))), std::vector<uint8_t>(rows)};
                formats::fp4_weight_blocks(layout(logical, role, false), scales, int(rows), d.cols, r.values, r.bases);
                return {std::move(r.values), std::move(r.bases)};
            }
            case kernels::WeightCopy::f16_tiles:
                return {formats::lay_out_f16_tile_values(role, d, logical),
                        formats::lay_out_f16_tile_scales(role, d, logical_scale)};
        }
        throw std::logic_error("weight_input: unknown weight copy");
    }

private:
    static data::MoeWeights make_weights(const data::MoeShape& moe, bool large_scales, bool spread) {
        data::MoeWeights w = data::make_synthetic_weights(moe, kSeed);
        if (large_scales) {
            raise_scales(w.w1_scale, 9);
            raise_scales(w.w2_scale, 9);
        }
        if (spread) {
            spread_scales(w.w1_scale);
            spread_scales(w.w2_scale);
        }
        return w;
    }
    static data::MxfpMatrix make_acts(const data::MoeShape& moe, bool large_scales) {
        data::MxfpMatrix a = data::make_synthetic_activations(moe, kSeed, formats::ActivationScales::mxfp8);
        if (large_scales) raise_scales(a.scales, 16);
        return a;
    }
    formats::ExpertWeightDims dims(formats::WeightRole role) const {
        const bool gate_up = role == formats::WeightRole::gate_up;
        return {shape.experts, gate_up ? 2 * shape.inter_dim : shape.model_dim, gate_up ? shape.model_dim : shape.inter_dim};
    }
    std::vector<uint8_t> layout(const std::vector<uint8_t>& t, formats::WeightRole role, bool scales) const {
        const formats::ExpertWeightDims d = dims(role);
        return scales ? formats::lay_out_scales(formats::WeightLayout::mma_k128, role, d, t)
                      : formats::lay_out_values(formats::WeightLayout::mma_k128, role, d, t);
    }
};

const Problem& problem(bool large_scales = false) {
    static const Problem plain(kShape, false), large(kShape, true);
    return large_scales ? large : plain;
}

const Problem& spread_scales_problem() {
    static const Problem p(kShape, false, true);
    return p;
}

// DSv4.1-Flash's K and one more chunk (stage 1: 41 chunks), stage 2 3 chunks; built once for every test.
const Problem& long_k_problem() {
    static const Problem p(kLongKShape, false);
    return p;
}

// A few tokens, as the register-fed stage-1 kernels see them at the decode buckets: one token, and
// 24 (48 routed rows) whose first slots all go to expert 3 (two 16-row sort blocks, the second
// half padding) and second slots to experts 0, 1, 2, 4, 5 in turn (6 and 7 get none).
const Problem& few_tokens_problem(int tokens) {
    auto make = [](int m) {
        const data::MoeShape shape{.tokens = m, .model_dim = kShape.model_dim, .inter_dim = kShape.inter_dim,
                                   .experts = kShape.experts, .topk = kShape.topk};
        if (m == 1) return std::make_unique<Problem>(shape, false);
        data::Routing r{m, shape.topk, {}, {}};
        for (int t = 0; t < m; ++t) {
            const int second = t % 5;
            r.ids.insert(r.ids.end(), {3, second < 3 ? second : second + 1});
            r.weights.insert(r.weights.end(), {0.75f, 0.25f});
        }
        return std::make_unique<Problem>(shape, false, false, std::move(r));
    };
    static std::map<int, std::unique_ptr<Problem>> made;
    auto& p = made[tokens];
    if (!p) p = make(tokens);
    return *p;
}

struct Sorted {
    gpu::DeviceBuffer<int32_t> ids, experts, num_valid;
    gpu::DeviceBuffer<float> weights;
    Sorted(const Problem& p, int block_m) {
        const data::SortedRouting s = data::moe_sorting_cpu(p.routing, p.shape.experts, block_m);
        ids = gpu::DeviceBuffer<int32_t>(std::span<const int32_t>(s.sorted_token_ids));
        experts = gpu::DeviceBuffer<int32_t>(std::span<const int32_t>(s.sorted_expert_ids));
        num_valid = gpu::DeviceBuffer<int32_t>(std::span<const int32_t>(s.num_valid_ids, 2));
        weights = gpu::DeviceBuffer<float>(std::span<const float>(s.sorted_weights));
    }
};

gpu::Module compile_candidate(const KernelConfig& c, int test_break, std::string& entry) {
    std::vector<std::string> options;
    for (const auto& d : kernels::compile_definitions(c)) options.push_back("-D" + d.name + "=" + d.value);
    if (test_break) options.push_back("-DMOETUNE_TEST_BREAK=" + std::to_string(test_break));
    entry = kernels::kernel_name(c);
    const rtc::CompiledCode code = rtc::compile(rtc::template_request(
        kernels::kernel_source(c).template_path, {entry}, gpu::device_info(gpu::current_device()).arch, options));
    entry = code.lowered_names.at(0);
    return gpu::Module(code.code);
}

gpu::LaunchShape launch_shape(const kernels::LaunchGeometry& g) {
    return {{g.grid.x, g.grid.y, g.grid.z}, {g.block.x, g.block.y, g.block.z}, g.dynamic_shared_bytes};
}

struct Stage1Out {
    std::vector<float> values;  // [M*topk, inter], dequantised when fused
    std::vector<uint8_t> bytes, scales;  // as the kernel wrote them (fused: values in its word order)
};

// What a kernel of config c reads as act and act_scale: m's MXFP8 values and scales, its rebased rows
// (interleaved for the register-fed kernels), for _mxr kernels its values interleaved, or for _gemv
// kernels its values as f16 rows (the bytes of the halves).
std::pair<std::vector<uint8_t>, std::vector<uint8_t>> activation_input(const KernelConfig& c, const data::MxfpMatrix& m,
                                                                       const Rebased& rebased,
                                                                       const Rebased& interleaved) {
    if (kernels::reads_mx_rows(c)) return {formats::interleave_mxfp8_words(m.values), m.scales};
    if (kernels::reads_f16_rows(c)) {
        const std::vector<uint16_t> halves = formats::mxfp8_values_to_f16_rows(m.values, m.rows, m.cols);
        std::vector<uint8_t> bytes(halves.size() * 2);
        std::memcpy(bytes.data(), halves.data(), bytes.size());
        return {std::move(bytes), m.scales};
    }
    if (!kernels::reads_rebased_rows(c)) return {m.values, m.scales};
    const Rebased& r = kernels::reads_interleaved_rows(c) ? interleaved : rebased;
    return {r.values, r.bases};
}

// wide_out: a fused kernel writes its output in the wide layout (MoeStage1Args::out_wide), returned
// in element order. resident: the workgroups of a persistent kernel's grid (0: one a tile).
// interleaved_out: a fused register-fed kernel writes each block's words interleaved
// (MoeStage1Args::out_interleaved; values are then not dequantised). routed: the kernel is given the
// routing's ids and finds its rows there (MoeStage1Args::topk_ids).
Stage1Out run_stage1(const KernelConfig& c, int test_break = 0, const Problem& p = problem(), bool wide_out = false,
                     long long resident = 0, bool interleaved_out = false, bool routed = false) {
    std::string entry;
    gpu::Module module = compile_candidate(c, test_break, entry);
    Sorted sorted(p, kernels::sort_block_m(c));
    const auto [act_values, act_scales] = activation_input(c, p.act, p.act_rebased, p.act_interleaved);
    gpu::DeviceBuffer<uint8_t> act{std::span<const uint8_t>(act_values)}, act_scale{std::span<const uint8_t>(act_scales)};
    const gpu::DeviceBuffer<uint16_t> act_wide(std::span<const uint16_t>(p.act_wide));
    const auto [w1, w1s] = p.weight_input(c);
    gpu::DeviceBuffer<uint8_t> dw1{std::span<const uint8_t>(w1)}, dw1s{std::span<const uint8_t>(w1s)};
    const size_t rows = size_t(p.shape.tokens) * p.shape.topk, inter = size_t(p.shape.inter_dim);
    gpu::DeviceBuffer<uint8_t> out(rows * inter * (c.fused_mxfp8_out ? 1 : 2)), out_scale(rows * inter / 32);
    out.fill_bytes(c.fused_mxfp8_out ? 0x7F : 0xFF);  // NaN: unwritten elements must fail
    out_scale.fill_bytes(0xFF);
    gpu::DeviceBuffer<uint16_t> out_wide(wide_out ? rows * inter : 0);
    out_wide.fill_bytes(0xFF);
    const gpu::DeviceBuffer<int32_t> topk_ids{std::span<const int32_t>(p.routing.ids)};

    MoeStage1Args args{act.data(), act_scale.data(), dw1.data(), dw1s.data(), sorted.ids.data(), sorted.experts.data(),
                       sorted.num_valid.data(), out.data(), out_scale.data(), p.shape.tokens, p.shape.topk,
                       p.shape.model_dim, p.shape.inter_dim,
                       kernels::reads_wide_activations(c) ? act_wide.data() : nullptr,
                       wide_out ? out_wide.data() : nullptr,
                       interleaved_out ? 1 : 0,
                       routed ? topk_ids.data() : nullptr,
                       p.shape.experts};
    gpu::Stream stream;
    module.kernel(entry).launch(launch_shape(kernels::launch_geometry(c, p.shape, resident)), stream, args);
    stream.synchronize();

    Stage1Out r;
    if (wide_out) {
        r.values = floats_of_wide(out_wide.download());
        return r;
    }
    const std::vector<uint8_t> bytes = out.download();
    r.values.resize(rows * inter);
    if (c.gemv) {  // f16 rows under e8m0 block scales
        std::vector<uint16_t> halves(rows * inter);
        std::memcpy(halves.data(), bytes.data(), bytes.size());
        r.values = formats::dequantize_f16_rows(halves, out_scale.download(), int(rows), int(inter));
    } else if (c.fused_mxfp8_out) {
        const std::vector<uint8_t> scales = out_scale.download();
        r.bytes = bytes;
        r.scales = scales;
        if (interleaved_out) return r;
        for (size_t i = 0; i < r.values.size(); ++i)
            r.values[i] = mx_e4m3fn_to_float(bytes[i]) * mx_e8m0_to_float(scales[i / 32]);
    } else {
        for (size_t i = 0; i < r.values.size(); ++i) r.values[i] = mx_bf16_to_float(uint16_t(bytes[2 * i] | (bytes[2 * i + 1] << 8)));
    }
    return r;
}

std::vector<float> run_stage2(const KernelConfig& c, const Problem& p = problem(), long long resident = 0) {
    std::string entry;
    gpu::Module module = compile_candidate(c, 0, entry);
    Sorted sorted(p, kernels::sort_block_m(c));
    const auto [act_values, act_scales] = activation_input(c, p.act2, p.act2_rebased, p.act2_interleaved);
    gpu::DeviceBuffer<uint8_t> act{std::span<const uint8_t>(act_values)}, act_scale{std::span<const uint8_t>(act_scales)};
    const gpu::DeviceBuffer<uint16_t> act_wide(std::span<const uint16_t>(p.act2_wide));
    const auto [w2, w2s] = p.weight_input(c);
    gpu::DeviceBuffer<uint8_t> dw2{std::span<const uint8_t>(w2)}, dw2s{std::span<const uint8_t>(w2s)};
    const bool atomic = c.mode == kernels::Stage2Mode::atomic;
    const size_t out_rows = size_t(p.shape.tokens) * (atomic ? 1 : p.shape.topk);
    gpu::DeviceBuffer<uint16_t> out(out_rows * p.shape.model_dim), final_out(size_t(p.shape.tokens) * p.shape.model_dim);
    out.fill_bytes(atomic ? 0x00 : 0xFF);  // atomic accumulates into a zeroed output
    final_out.fill_bytes(0xFF);

    MoeStage2Args args{act.data(), act_scale.data(), dw2.data(), dw2s.data(), sorted.ids.data(), sorted.weights.data(),
                       sorted.experts.data(), sorted.num_valid.data(), out.data(), p.shape.tokens, p.shape.topk,
                       p.shape.model_dim, p.shape.inter_dim, kernels::reads_wide_activations(c) ? act_wide.data() : nullptr};
    gpu::Stream stream;
    module.kernel(entry).launch(launch_shape(kernels::launch_geometry(c, p.shape, resident)), stream, args);
    if (atomic) {
        stream.synchronize();
        return bf16_to_floats(out.download());
    }
    const rtc::CompiledCode reduce = rtc::compile(rtc::template_request(
        "moe_reduce.hip", {"moe_reduce_kernel<" + std::to_string(kernels::kReduceThreads) + ">"},
        gpu::device_info(gpu::current_device()).arch));
    gpu::Module reduce_module(reduce.code);
    MoeReduceArgs rargs{out.data(), final_out.data(), p.shape.tokens, p.shape.topk, p.shape.model_dim};
    reduce_module.kernel(reduce.lowered_names.at(0)).launch(launch_shape(kernels::reduce_launch_geometry(p.shape)), stream, rargs);
    stream.synchronize();
    return bf16_to_floats(final_out.download());
}

KernelConfig stage1(int tile_m, int tile_n, int tile_k, int warps, bool nt, bool fused) {
    KernelConfig c;
    c.stage = kernels::Stage::gate_up;
    c.tile_m = tile_m;
    c.tile_n = tile_n;
    c.tile_k = tile_k;
    c.warps = warps;
    c.nontemporal_weights = nt;
    c.fused_mxfp8_out = fused;
    return c;
}

KernelConfig stage2(int tile_m, int tile_n, int tile_k, int warps, bool nt, kernels::Stage2Mode mode, int sort_block) {
    KernelConfig c;
    c.stage = kernels::Stage::down;
    c.tile_m = tile_m;
    c.tile_n = tile_n;
    c.tile_k = tile_k;
    c.warps = warps;
    c.nontemporal_weights = nt;
    c.mode = mode;
    c.sort_block = sort_block;
    return c;
}

// K-groups (_kw), of 8 warps or of 4 (4 groups of one warp each cover the whole tile): K 512 of
// stage 1 is 4 chunks, K 256 of stage 2 two, so with 4 groups of 128 some groups walk nothing and
// must add zeros.
KernelConfig with_k_warps(KernelConfig c, int k_warps) {
    c.k_warps = k_warps;
    return c;
}

// An occupancy bound (_occ4): 128 registers a thread for 4-warp workgroups, so the 16x64 warp
// blocks of 256-wide tiles spill (68-72 bytes on sm_90a); the results must not change.
KernelConfig with_occupancy_bound(KernelConfig c) {
    c.min_workgroups = 4;
    return c;
}

// Shared operands (_smem): the bf16 path at tile_k 128, where the workgroup stages both operands.
KernelConfig with_shared_operands(KernelConfig c, bool wgmma = false) {
    c.mma = kernels::MmaPath::bf16;
    c.shared_operands = true;
    c.wgmma = wgmma;
    return c;
}

// FP8 warpgroup products (_smem_wgmma on the FP8 path): rebased activations, one warpgroup per 64 rows.
KernelConfig with_fp8_warpgroups(KernelConfig c) {
    c = with_shared_operands(c, true);
    c.mma = kernels::MmaPath::fp8;
    return c;
}

// The warp-specialised FP8 loop (_ws): consumer warpgroups of 128 rows and a producer warpgroup.
KernelConfig with_warp_specialisation(KernelConfig c) {
    c = with_fp8_warpgroups(c);
    c.warp_specialised = true;
    c.warps = mx_ws_warps(c.tile_m, c.tile_n);
    return c;
}

// ... reading FP4 weights that its consumers rebase themselves (_f4w).
KernelConfig with_fp4_weights(KernelConfig c) {
    c = with_warp_specialisation(c);
    c.fp4_weights = true;
    return c;
}

KernelConfig with_weights_read_once(KernelConfig c) {
    c.weights_read_once = true;
    return c;
}

// Register-fed FP8 warpgroup products (_wgmma without _smem): one warp per 16 weight rows.
KernelConfig with_register_fed_warpgroups(KernelConfig c) {
    c.mma = kernels::MmaPath::fp8;
    c.wgmma = true;
    c.warps = c.tile_n / 16;
    return c;
}

// ... reading MXFP8 rows (_mxr) instead of rebased ones.
KernelConfig with_mx_rows(KernelConfig c) {
    c = with_register_fed_warpgroups(c);
    c.mx_rows = true;
    return c;
}

// ... multiplying a 16-row tile's first 8 rows alone (_r8: at most 8 tokens).
KernelConfig with_eight_rows(KernelConfig c) {
    c.eight_rows = true;
    return c;
}

// The few-token GEMVs (_gemv): S = warps / tiles warps a tile split K, tile_k / 64 pairs in flight a
// lane, with _smem in a cp.async ring.
KernelConfig gemv(KernelConfig c, bool ring) {
    c.gemv = true;
    c.nontemporal_weights = true;
    c.shared_operands = ring;
    return c;
}

// _wgmma runs on sm_90a only (elsewhere static pruning drops it).
bool wgmma_here() { return gpu::device_info(gpu::current_device()).arch == "sm_90a"; }

// For test cases of FP8 warpgroup products alone: false, with a warning, where they do not run.
bool fp8_warpgroups_here() {
    if (wgmma_here()) return true;
    WARN("FP8 warpgroup products run on sm_90a only: nothing to check on this GPU");
    return false;
}

// Each config on the FP8 path, then the same configs on the bf16 path (_mbf16), which must meet
// the same tolerances.
std::vector<KernelConfig> on_both_mma_paths(std::initializer_list<KernelConfig> configs) {
    std::vector<KernelConfig> out;
    for (kernels::MmaPath path : {kernels::MmaPath::fp8, kernels::MmaPath::bf16})
        for (KernelConfig c : configs) {
            c.mma = path;
            out.push_back(c);
        }
    return out;
}

}  // namespace

TEST_CASE("stage-1 kernels match the reference", "[gpu][kernels]") {
    const Problem& p = problem();
    for (const KernelConfig& c : on_both_mma_paths({stage1(16, 64, 128, 2, true, false), stage1(32, 128, 256, 4, false, false),
                                                    stage1(64, 256, 512, 4, true, true), stage1(128, 128, 256, 8, false, false),
                                                    stage1(32, 256, 128, 4, true, true),
                                                    with_k_warps(stage1(16, 128, 128, 8, true, true), 4),
                                                    with_k_warps(stage1(32, 64, 256, 8, false, false), 2),
                                                    with_k_warps(stage1(16, 64, 128, 4, true, true), 4),
                                                    with_k_warps(stage1(32, 128, 128, 4, false, false), 2),
                                                    with_occupancy_bound(stage1(16, 256, 128, 4, true, true)),
                                                    with_occupancy_bound(stage1(32, 128, 128, 4, true, false))})) {
        INFO(kernels::kernel_name(c));
        const Stage1Out r = run_stage1(c);
        // bf16 output: within bf16 rounding of the FP32 reference; fused: within one e4m3 step.
        const double tolerance = c.fused_mxfp8_out ? 0.07 : 0.01;
        const double mismatch = data::mismatch_fraction(p.ref1, r.values, tolerance, tolerance);
        const double row_cos = data::worst_row_cosine_difference(p.ref1, r.values, size_t(kShape.inter_dim));
        UNSCOPED_INFO("mismatch " << mismatch << " worst row cosine diff " << row_cos);
        CHECK(mismatch <= 0.001);
        CHECK(row_cos < 1e-3);
    }
}

// For a stage 2 that reads the wide layout, a fused stage 1 writes its MXFP8 output widened: the
// same values, exactly, as the MXFP8 it writes otherwise.
TEST_CASE("fused stage-1 kernels write the wide layout of their MXFP8 output", "[gpu][kernels]") {
    for (const KernelConfig& c : on_both_mma_paths({stage1(64, 256, 512, 4, true, true), stage1(32, 256, 128, 4, true, true),
                                                    with_k_warps(stage1(16, 64, 128, 4, true, true), 4)})) {
        INFO(kernels::kernel_name(c));
        const Stage1Out mxfp8 = run_stage1(c), wide = run_stage1(c, 0, problem(), /*wide_out=*/true);
        REQUIRE(wide.values.size() == mxfp8.values.size());
        size_t differ = 0;
        for (size_t i = 0; i < wide.values.size(); ++i) differ += wide.values[i] != mxfp8.values[i];
        CHECK(differ == 0);
    }
    const KernelConfig shared = with_shared_operands(stage1(32, 128, 128, 4, false, true));
    INFO(kernels::kernel_name(shared));
    CHECK(run_stage1(shared, 0, problem(), true).values == run_stage1(shared).values);
}

TEST_CASE("stage-2 kernels match the reference", "[gpu][kernels]") {
    const Problem& p = problem();
    using kernels::Stage2Mode;
    for (const KernelConfig& c : on_both_mma_paths({stage2(16, 64, 128, 4, false, Stage2Mode::atomic, 0),
                                                    stage2(32, 128, 256, 4, true, Stage2Mode::reduce, 0),
                                                    stage2(32, 256, 128, 8, false, Stage2Mode::atomic, 64),
                                                    stage2(64, 128, 256, 8, true, Stage2Mode::reduce, 128),
                                                    with_k_warps(stage2(16, 128, 128, 8, false, Stage2Mode::atomic, 32), 2),
                                                    with_k_warps(stage2(16, 64, 128, 8, true, Stage2Mode::reduce, 0), 4),
                                                    with_k_warps(stage2(16, 128, 128, 4, false, Stage2Mode::atomic, 0), 2),
                                                    with_k_warps(stage2(16, 64, 128, 4, true, Stage2Mode::atomic, 32), 4),
                                                    with_occupancy_bound(stage2(16, 256, 128, 4, true, Stage2Mode::atomic, 0)),
                                                    with_occupancy_bound(stage2(32, 128, 128, 4, true, Stage2Mode::reduce, 0))})) {
        INFO(kernels::kernel_name(c));
        const std::vector<float> out = run_stage2(c);
        const double mismatch = data::mismatch_fraction(p.ref2, out, 0.02, 0.02);
        const double row_cos = data::worst_row_cosine_difference(p.ref2, out, size_t(kShape.model_dim));
        UNSCOPED_INFO("mismatch " << mismatch << " worst row cosine diff " << row_cos);
        CHECK(mismatch <= 0.001);
        CHECK(row_cos < 1e-3);
    }
}

// Shared operands (_smem, and _wgmma on sm_90a, also with two warpgroups side by side and swapped,
// and FP8 warpgroup products on rebased activations), and the register-fed FP8 warpgroup products
// (also on MXFP8 rows, _mxr: each block's partial sums times the token's block scale):
// 4, 8 and 16 warps, tiles of 32..256 rows (mostly padding rows here, which must stay out of the sums), 64..256
// columns, both epilogues of each stage, a half sort block; with ordinary scales (the fast
// widening) and large ones (the exact paths, taken per chunk). Large scales are judged by the row
// cosine only: the elementwise metric's absolute floor (1.0) assumes outputs of order one, and these
// are ~2^25 and more.
TEST_CASE("shared-operand kernels match the reference", "[gpu][kernels]") {
    using kernels::Stage2Mode;
    const std::vector<KernelConfig> stage1_configs = {
        with_shared_operands(stage1(32, 128, 128, 4, false, true)),
        with_shared_operands(stage1(64, 256, 128, 8, false, false)),
        with_shared_operands(stage1(128, 128, 128, 8, false, true)),
        with_shared_operands(stage1(64, 128, 128, 4, false, true), true),
        with_shared_operands(stage1(128, 64, 128, 8, false, false), true),
        with_shared_operands(stage1(256, 128, 128, 16, false, true), true),
        // Two warpgroups side by side, each over half the width.
        with_shared_operands(stage1(64, 256, 128, 8, false, false), true),
        with_shared_operands(stage1(128, 256, 128, 16, false, false), true),
        // Swapped: the weights' rows in the warpgroups, 32 rows as the products' N.
        with_shared_operands(stage1(32, 64, 128, 4, false, false), true),
        with_shared_operands(stage1(32, 128, 128, 8, false, false), true),
        with_shared_operands(stage1(32, 256, 128, 16, false, false), true),
        // FP8 warpgroup products.
        with_fp8_warpgroups(stage1(64, 128, 128, 4, false, true)),
        with_fp8_warpgroups(stage1(128, 64, 128, 8, false, false)),
        with_fp8_warpgroups(stage1(256, 128, 128, 16, false, true)),
        // Warp-specialised: two consumer warpgroups (256 rows) or one (128, 64); 256 wide, one a
        // 64-row block (two at 128 rows).
        with_warp_specialisation(stage1(256, 128, 128, 12, false, true)),
        with_warp_specialisation(stage1(128, 64, 128, 8, false, false)),
        with_warp_specialisation(stage1(64, 128, 128, 8, false, true)),
        with_warp_specialisation(stage1(128, 256, 128, 12, false, true)),
        with_warp_specialisation(stage1(64, 256, 128, 8, false, false)),
        with_fp4_weights(stage1(128, 256, 128, 12, false, true)),
        with_fp4_weights(stage1(64, 256, 128, 8, false, false)),
        // Register-fed FP8 warpgroup products: 16 and 32 rows, 64..256 W1 rows, 2, 4 or 8 chunks in
        // flight (8: more than this K's 4 chunks).
        with_register_fed_warpgroups(stage1(16, 64, 256, 4, true, false)),
        with_register_fed_warpgroups(stage1(16, 64, 1024, 4, true, false)),
        with_register_fed_warpgroups(stage1(16, 256, 512, 16, true, false)),
        with_register_fed_warpgroups(stage1(32, 128, 512, 8, false, false)),
        // ... on MXFP8 rows (_mxr), one with the fused MXFP8 epilogue.
        with_mx_rows(stage1(16, 64, 256, 4, true, false)),
        with_mx_rows(stage1(32, 128, 512, 8, false, true)),
        with_mx_rows(stage1(16, 256, 1024, 16, true, false))};
    const std::vector<KernelConfig> stage2_configs = {
        with_shared_operands(stage2(32, 64, 128, 4, false, Stage2Mode::atomic, 0)),
        with_shared_operands(stage2(64, 128, 128, 8, false, Stage2Mode::atomic, 128)),
        with_shared_operands(stage2(128, 128, 128, 8, false, Stage2Mode::reduce, 0)),
        with_shared_operands(stage2(64, 64, 128, 4, false, Stage2Mode::atomic, 128), true),
        with_shared_operands(stage2(128, 128, 128, 8, false, Stage2Mode::reduce, 0), true),
        with_shared_operands(stage2(128, 64, 128, 8, false, Stage2Mode::atomic, 256), true),
        with_shared_operands(stage2(256, 128, 128, 16, false, Stage2Mode::atomic, 0), true),
        with_shared_operands(stage2(64, 256, 128, 8, false, Stage2Mode::reduce, 0), true),
        with_shared_operands(stage2(128, 256, 128, 16, false, Stage2Mode::atomic, 0), true),
        with_shared_operands(stage2(32, 64, 128, 4, false, Stage2Mode::reduce, 64), true),
        with_shared_operands(stage2(32, 128, 128, 8, false, Stage2Mode::atomic, 0), true),
        with_shared_operands(stage2(32, 256, 128, 16, false, Stage2Mode::atomic, 64), true),
        with_fp8_warpgroups(stage2(64, 64, 128, 4, false, Stage2Mode::atomic, 128)),
        with_fp8_warpgroups(stage2(128, 128, 128, 8, false, Stage2Mode::reduce, 0)),
        with_fp8_warpgroups(stage2(256, 128, 128, 16, false, Stage2Mode::atomic, 0)),
        with_warp_specialisation(stage2(256, 128, 128, 12, false, Stage2Mode::atomic, 0)),
        with_warp_specialisation(stage2(128, 128, 128, 8, false, Stage2Mode::reduce, 0)),
        with_warp_specialisation(stage2(128, 64, 128, 8, false, Stage2Mode::atomic, 256)),
        with_warp_specialisation(stage2(128, 256, 128, 12, false, Stage2Mode::atomic, 0)),
        with_warp_specialisation(stage2(64, 256, 128, 8, false, Stage2Mode::reduce, 0)),
        with_fp4_weights(stage2(128, 256, 128, 12, false, Stage2Mode::atomic, 0)),
        with_fp4_weights(stage2(64, 256, 128, 8, false, Stage2Mode::reduce, 0)),
        // Register-fed FP8 warpgroup products: 16 and 32 rows, 64..256 weight rows, 2, 4 or 8 chunks
        // in flight, both epilogues, a half sort block.
        with_register_fed_warpgroups(stage2(16, 64, 256, 4, true, Stage2Mode::atomic, 0)),
        with_register_fed_warpgroups(stage2(16, 128, 1024, 8, true, Stage2Mode::atomic, 0)),
        with_register_fed_warpgroups(stage2(16, 128, 512, 8, true, Stage2Mode::atomic, 32)),
        with_register_fed_warpgroups(stage2(32, 256, 256, 16, false, Stage2Mode::reduce, 0)),
        with_register_fed_warpgroups(stage2(32, 64, 512, 4, true, Stage2Mode::atomic, 64)),
        with_mx_rows(stage2(16, 64, 256, 4, true, Stage2Mode::atomic, 0)),
        with_mx_rows(stage2(16, 128, 1024, 8, true, Stage2Mode::atomic, 32)),
        with_mx_rows(stage2(32, 256, 256, 16, false, Stage2Mode::reduce, 0)),
        with_mx_rows(stage2(32, 64, 512, 4, true, Stage2Mode::atomic, 64))};
    for (const bool large_scales : {false, true}) {
        const Problem& p = problem(large_scales);
        INFO("large scales " << large_scales);
        for (const KernelConfig& c : stage1_configs) {
            if (c.wgmma && !wgmma_here()) continue;
            INFO(kernels::kernel_name(c));
            const Stage1Out r = run_stage1(c, 0, p);
            const double tolerance = c.fused_mxfp8_out ? 0.07 : 0.01;
            if (!large_scales) CHECK(data::mismatch_fraction(p.ref1, r.values, tolerance, tolerance) <= 0.001);
            CHECK(data::worst_row_cosine_difference(p.ref1, r.values, size_t(kShape.inter_dim)) < 1e-3);
        }
        for (const KernelConfig& c : stage2_configs) {
            if (c.wgmma && !wgmma_here()) continue;
            INFO(kernels::kernel_name(c));
            const std::vector<float> out = run_stage2(c, p);
            if (!large_scales) CHECK(data::mismatch_fraction(p.ref2, out, 0.02, 0.02) <= 0.001);
            CHECK(data::worst_row_cosine_difference(p.ref2, out, size_t(kShape.model_dim)) < 1e-3);
        }
    }
}

// The register-fed stage 1's fused MXFP8 epilogue (each block's maximum over 4 warps) quantises what
// the bf16 kernel writes, as the separate pass does: the same bytes and scales as the host's
// quantisation of that output, and with out_interleaved the same bytes in the interleaved word order
// that a stage 2 on MXFP8 rows (_mxr) reads. (The _mxr kernels themselves are in the reference and
// long-K cases above.)
TEST_CASE("the register-fed stage 1's fused MXFP8 epilogue writes the separate quantisation's bytes", "[gpu][kernels]") {
    if (!fp8_warpgroups_here()) return;
    const Problem& p = problem();
    for (const KernelConfig& bf16 : {with_register_fed_warpgroups(stage1(16, 64, 512, 4, true, false)),
                                     with_register_fed_warpgroups(stage1(32, 128, 256, 8, false, false)),
                                     with_register_fed_warpgroups(stage1(16, 256, 1024, 16, true, false))}) {
        KernelConfig fused = bf16;
        fused.fused_mxfp8_out = true;
        INFO(kernels::kernel_name(fused));
        const data::MxfpMatrix quantised =
            data::quantize_stage1_output(p.shape, run_stage1(bf16, 0, p).values, formats::ActivationScales::mxfp8);
        const Stage1Out r = run_stage1(fused, 0, p);
        CHECK(r.bytes == quantised.values);
        CHECK(r.scales == quantised.scales);
        const Stage1Out interleaved = run_stage1(fused, 0, p, false, 0, /*interleaved_out=*/true);
        CHECK(interleaved.bytes == formats::interleave_mxfp8_words(quantised.values));
        CHECK(interleaved.scales == quantised.scales);
    }
}

// Given the routing, the register-fed stage-1 kernels find their rows themselves (routed_rows.h, the
// library at a few tokens) and write what they write from the sort, bit for bit: every row of the
// output is written (it starts as NaN) and lands where the sort puts it; bf16 and fused MXFP8 output.
TEST_CASE("register-fed stage-1 kernels given the routing write what they write from the sort", "[gpu][kernels]") {
    if (!fp8_warpgroups_here()) return;
    for (const int tokens : {1, 24}) {
        const Problem& p = few_tokens_problem(tokens);
        for (const KernelConfig& c : {with_register_fed_warpgroups(stage1(16, 64, 512, 4, true, false)),
                                      with_register_fed_warpgroups(stage1(32, 128, 256, 8, false, false)),
                                      with_register_fed_warpgroups(stage1(16, 64, 256, 4, true, true))}) {
            INFO(kernels::kernel_name(c) << " at " << tokens << " tokens");
            const Stage1Out sorted = run_stage1(c, 0, p);
            const Stage1Out routed = run_stage1(c, 0, p, false, 0, false, /*routed=*/true);
            CHECK(routed.values == sorted.values);
            CHECK(routed.bytes == sorted.bytes);
            CHECK(data::worst_row_cosine_difference(p.ref1, sorted.values, size_t(p.shape.inter_dim)) < 1e-3);
        }
    }
}

// The eight-row register-fed kernels (_r8) at 1, 2 and 8 tokens (8: expert 3's sort block holds 8
// rows, all its products cover): stage 1 on rebased and MXFP8 rows, bf16 and fused MXFP8 output, from
// the sort and given the routing (the same bits); stage 2 atomic and reduce, on a half sort block, on
// MXFP8 rows; 2, 4 and 8 chunks in flight.
TEST_CASE("eight-row register-fed kernels match the reference at up to 8 tokens", "[gpu][kernels]") {
    if (!fp8_warpgroups_here()) return;
    using kernels::Stage2Mode;
    for (const int tokens : {1, 2, 8}) {
        const Problem& p = few_tokens_problem(tokens);
        for (const KernelConfig& c : {with_eight_rows(with_register_fed_warpgroups(stage1(16, 64, 512, 4, true, false))),
                                      with_eight_rows(with_register_fed_warpgroups(stage1(16, 64, 256, 4, true, true))),
                                      with_eight_rows(with_register_fed_warpgroups(stage1(16, 128, 1024, 8, true, false))),
                                      with_eight_rows(with_mx_rows(stage1(16, 256, 1024, 16, true, false)))}) {
            INFO(kernels::kernel_name(c) << " at " << tokens << " tokens");
            const Stage1Out r = run_stage1(c, 0, p);
            const double tolerance = c.fused_mxfp8_out ? 0.07 : 0.01;
            CHECK(data::mismatch_fraction(p.ref1, r.values, tolerance, tolerance) <= 0.001);
            CHECK(data::worst_row_cosine_difference(p.ref1, r.values, size_t(kShape.inter_dim)) < 1e-3);
            const Stage1Out routed = run_stage1(c, 0, p, false, 0, false, /*routed=*/true);
            CHECK(routed.values == r.values);
            CHECK(routed.bytes == r.bytes);
        }
        for (const KernelConfig& c :
             {with_eight_rows(with_register_fed_warpgroups(stage2(16, 128, 256, 8, true, Stage2Mode::atomic, 0))),
              with_eight_rows(with_register_fed_warpgroups(stage2(16, 64, 512, 4, true, Stage2Mode::reduce, 32))),
              with_eight_rows(with_register_fed_warpgroups(stage2(16, 128, 1024, 8, true, Stage2Mode::atomic, 32))),
              with_eight_rows(with_mx_rows(stage2(16, 64, 256, 4, true, Stage2Mode::atomic, 0)))}) {
            INFO(kernels::kernel_name(c) << " at " << tokens << " tokens");
            const std::vector<float> out = run_stage2(c, p);
            CHECK(data::mismatch_fraction(p.ref2, out, 0.02, 0.02) <= 0.001);
            CHECK(data::worst_row_cosine_difference(p.ref2, out, size_t(kShape.model_dim)) < 1e-3);
        }
    }
}

// The _f4w kernels rebase their FP4 blocks by table in the SM to what the rebased copy holds, bit for
// bit, and multiply them as the _ws kernels multiply that copy: the same outputs, bit for bit, also
// where rows' block scales span 14 octaves (every table row, e4m3 subnormals, bits lost below them).
TEST_CASE("FP4 weight blocks give the warp-specialised kernels' bits", "[gpu][kernels]") {
    if (!fp8_warpgroups_here()) return;
    using kernels::Stage2Mode;
    for (const Problem* p : {&problem(), &spread_scales_problem()}) {
        for (const KernelConfig& c : {stage1(128, 256, 128, 12, false, false), stage1(64, 256, 128, 8, false, true)}) {
            INFO(kernels::kernel_name(with_fp4_weights(c)));
            CHECK(run_stage1(with_fp4_weights(c), 0, *p).values == run_stage1(with_warp_specialisation(c), 0, *p).values);
        }
        for (const KernelConfig& c : {stage2(128, 256, 128, 12, false, Stage2Mode::reduce, 0),
                                      stage2(64, 256, 128, 8, false, Stage2Mode::reduce, 0)}) {
            INFO(kernels::kernel_name(with_fp4_weights(c)));
            CHECK(run_stage2(with_fp4_weights(c), *p) == run_stage2(with_warp_specialisation(c), *p));
        }
    }
}

// _ro only changes the L2 policy of the weights' bulk copies. In these problems (~9 rows an expert) every row tile
// is its expert's only one, so every weight copy takes the evict-first form.
TEST_CASE("weights read once (_ro) give their warp-specialised twins' bits", "[gpu][kernels]") {
    if (!fp8_warpgroups_here()) return;
    using kernels::Stage2Mode;
    for (const Problem* p : {&problem(), &spread_scales_problem()}) {
        for (const KernelConfig& twin : {with_warp_specialisation(stage1(128, 256, 128, 12, false, true)),
                                         with_fp4_weights(stage1(128, 256, 128, 12, false, false))}) {
            INFO(kernels::kernel_name(with_weights_read_once(twin)));
            CHECK(run_stage1(with_weights_read_once(twin), 0, *p).values == run_stage1(twin, 0, *p).values);
        }
        for (const KernelConfig& twin : {with_warp_specialisation(stage2(128, 256, 128, 12, false, Stage2Mode::reduce, 0)),
                                         with_fp4_weights(stage2(128, 256, 128, 12, false, Stage2Mode::reduce, 256))}) {
            INFO(kernels::kernel_name(with_weights_read_once(twin)));
            CHECK(run_stage2(with_weights_read_once(twin), *p) == run_stage2(twin, *p));
        }
    }
}

// Hopper's FP8 warpgroup products add into their accumulators with fewer bits than FP32, so over a
// long K the sums drift; tiles of up to 256 threads add each 128-wide chunk's products into FP32 sums
// (moe_fp8_wgmma_gemm.h, kPromote). Measured on the H200 (stage 1, bf16 out, these inputs): rel L2
// 1.62e-3 with FP32 sums (the same for every such tile: the sums are added in one order), 2.08e-3
// for the 512-thread 256-row tiles and the warp-specialised ones, which have no registers for the
// FP32 sums. The bounds lie
// between, so that a loop which loses the FP32 sums fails here. The register-fed kernels add each
// 32-wide block into FP32 sums; over this K their pipelines run whole (2, 4 and 8 chunks ahead: 41 =
// 5 windows + 1, 10 steps of 4 + 1, 5 steps of 8 + 1) and stage 2's 3 chunks are fewer than 8.
TEST_CASE("FP8 warpgroup products keep FP32 sums over a long K", "[gpu][kernels]") {
    if (!fp8_warpgroups_here()) return;
    using kernels::Stage2Mode;
    const Problem& p = long_k_problem();
    struct Case {
        KernelConfig config;
        double max_rel_l2;
    };
    for (const Case& c : {Case{with_fp8_warpgroups(stage1(64, 128, 128, 4, false, false)), 1.8e-3},
                          Case{with_fp8_warpgroups(stage1(128, 128, 128, 8, false, false)), 1.8e-3},
                          Case{with_fp8_warpgroups(stage1(64, 64, 128, 4, false, false)), 1.8e-3},
                          Case{with_fp8_warpgroups(stage1(256, 128, 128, 16, false, false)), 2.5e-3},
                          Case{with_warp_specialisation(stage1(256, 128, 128, 12, false, false)), 2.5e-3},
                          Case{with_warp_specialisation(stage1(128, 128, 128, 8, false, false)), 2.5e-3},
                          Case{with_warp_specialisation(stage1(128, 256, 128, 12, false, false)), 2.5e-3},
                          // 192 wide (this shape's 768 W1 rows; the small one's 512 are not a multiple)
                          Case{with_warp_specialisation(stage1(128, 192, 128, 8, false, false)), 2.5e-3},
                          Case{with_warp_specialisation(stage1(256, 192, 128, 12, false, false)), 2.5e-3},
                          Case{with_fp4_weights(stage1(128, 256, 128, 12, false, false)), 2.5e-3},
                          Case{with_register_fed_warpgroups(stage1(16, 64, 256, 4, true, false)), 1.8e-3},
                          Case{with_register_fed_warpgroups(stage1(16, 128, 512, 8, true, false)), 1.8e-3},
                          Case{with_register_fed_warpgroups(stage1(16, 64, 1024, 4, true, false)), 1.8e-3},
                          Case{with_mx_rows(stage1(16, 64, 256, 4, true, false)), 1.8e-3},
                          Case{with_mx_rows(stage1(16, 64, 1024, 4, true, false)), 1.8e-3}}) {
        INFO(kernels::kernel_name(c.config));
        const Stage1Out r = run_stage1(c.config, 0, p);
        CHECK(data::relative_l2_difference(p.ref1, r.values) <= c.max_rel_l2);
    }
    for (const Case& c : {Case{with_fp8_warpgroups(stage2(64, 64, 128, 4, false, Stage2Mode::atomic, 0)), 4e-3},
                          Case{with_fp8_warpgroups(stage2(128, 128, 128, 8, false, Stage2Mode::reduce, 0)), 4e-3},
                          Case{with_warp_specialisation(stage2(256, 128, 128, 12, false, Stage2Mode::atomic, 0)), 4e-3},
                          Case{with_register_fed_warpgroups(stage2(16, 128, 1024, 8, true, Stage2Mode::atomic, 0)), 4e-3},
                          Case{with_mx_rows(stage2(16, 128, 1024, 8, true, Stage2Mode::atomic, 0)), 4e-3}}) {
        INFO(kernels::kernel_name(c.config));
        CHECK(data::relative_l2_difference(p.ref2, run_stage2(c.config, p)) <= c.max_rel_l2);
    }
}

// The FP8 shared-operand kernels walk their tiles (kernels::persistent_tiles): with one workgroup a
// tile, each walks one; with fewer, each walks many, and copies the next tile's first chunks during
// the last ones of the tile before (when it has more chunks than it copies ahead). Every tile's sums
// are added in the same order either way, so stage 1 and a reduce stage 2 give the same bits; atomic
// adds come in another order, so that one is held to the reference. K: 4 chunks (stage 1) and 2
// (stage 2), and 41 and 3; 2 and 4 chunks ahead. The warp-specialised kernels' producers walk the
// tiles ahead of their consumers, through a ring of 3 to 8 buffers and two slots of rows.
TEST_CASE("FP8 shared-operand kernels give the same results however many workgroups walk the tiles", "[gpu][kernels]") {
    if (!fp8_warpgroups_here()) return;
    using kernels::Stage2Mode;
    for (const Problem* p : {&problem(), &long_k_problem()}) {
        INFO("model_dim " << p->shape.model_dim << " inter_dim " << p->shape.inter_dim);
        for (const KernelConfig& c : {with_fp8_warpgroups(stage1(64, 128, 128, 4, false, true)),
                                      with_fp8_warpgroups(stage1(128, 64, 128, 8, false, false)),
                                      with_fp8_warpgroups(stage1(256, 128, 128, 16, false, false)),
                                      with_warp_specialisation(stage1(256, 128, 128, 12, false, true)),
                                      with_warp_specialisation(stage1(128, 64, 128, 8, false, false)),
                                      with_warp_specialisation(stage1(128, 256, 128, 12, false, true)),
                                      with_fp4_weights(stage1(128, 256, 128, 12, false, true))}) {
            INFO(kernels::kernel_name(c));
            const std::vector<float> one_a_tile = run_stage1(c, 0, *p).values;
            for (const long long resident : {1LL, 3LL}) {
                INFO("workgroups " << resident);
                CHECK(run_stage1(c, 0, *p, false, resident).values == one_a_tile);
            }
        }
        std::vector<KernelConfig> stage2s = {
            with_fp8_warpgroups(stage2(64, 64, 128, 4, false, Stage2Mode::reduce, 128)),
            with_fp8_warpgroups(stage2(128, 128, 128, 8, false, Stage2Mode::reduce, 0)),
            with_warp_specialisation(stage2(128, 128, 128, 8, false, Stage2Mode::reduce, 0)),
            with_warp_specialisation(stage2(256, 64, 128, 12, false, Stage2Mode::reduce, 0))};
        // FP4 weights with fewer chunks a tile (2) than the producers stage ahead (3), so their copies
        // run into the next tile's; 256 wide only, which the long-K problem's model_dim is not a multiple of.
        if (p == &problem())
            for (const KernelConfig& c : {stage2(128, 256, 128, 12, false, Stage2Mode::reduce, 0),
                                          stage2(64, 256, 128, 8, false, Stage2Mode::reduce, 0)})
                stage2s.push_back(with_fp4_weights(c));
        for (const KernelConfig& c : stage2s) {
            INFO(kernels::kernel_name(c));
            const std::vector<float> one_a_tile = run_stage2(c, *p);
            for (const long long resident : {1LL, 3LL}) {
                INFO("workgroups " << resident);
                CHECK(run_stage2(c, *p, resident) == one_a_tile);
            }
        }
        for (const KernelConfig& atomic :
             {with_fp8_warpgroups(stage2(256, 128, 128, 16, false, Stage2Mode::atomic, 0)),
              with_warp_specialisation(stage2(256, 128, 128, 12, false, Stage2Mode::atomic, 0))}) {
            INFO(kernels::kernel_name(atomic));
            const std::vector<float> out = run_stage2(atomic, *p, 3);
            CHECK(data::mismatch_fraction(p->ref2, out, 0.02, 0.02) <= 0.001);
            CHECK(data::worst_row_cosine_difference(p->ref2, out, size_t(p->shape.model_dim)) < 1e-3);
        }
    }
}

// At 1, 2 and 8 tokens (the most a _gemv kernel serves: a sort block's rows are its product's 8
// columns; at 2 and 8 tokens one expert takes a row of every token): K of 8 pairs at stage 1 and 4 at
// stage 2 split among 1..4 warps a tile, with more pairs in flight than a warp's share has (their
// loads must stay inside it), in registers and in the cp.async ring; stage 1 writes f16 rows under
// one e8m0 scale a block (judged as the bf16 output is), stage 2 reads the reference's stage-2 input
// as f16 rows and adds its rows atomically.
TEST_CASE("the _gemv kernels match the reference", "[gpu][kernels]") {
    using kernels::Stage2Mode;
    for (int tokens : {1, 2, 8}) {
        const Problem& p = few_tokens_problem(tokens);
        for (bool ring : {false, true}) {
            for (const KernelConfig& c : {gemv(stage1(16, 64, 128, 4, true, false), ring),
                                          gemv(stage1(16, 64, 256, 8, true, false), ring),
                                          gemv(stage1(16, 64, 512, 16, true, false), ring)}) {
                INFO(kernels::kernel_name(c) << " at " << tokens << " tokens");
                const Stage1Out r = run_stage1(c, 0, p);
                const double mismatch = data::mismatch_fraction(p.ref1, r.values, 0.01, 0.01);
                const double row_cos = data::worst_row_cosine_difference(p.ref1, r.values, size_t(kShape.inter_dim));
                UNSCOPED_INFO("mismatch " << mismatch << " worst row cosine diff " << row_cos);
                CHECK(mismatch <= 0.001);
                CHECK(row_cos < 1e-3);
            }
            for (const KernelConfig& c : {gemv(stage2(16, 16, 128, 1, true, Stage2Mode::atomic, 0), ring),
                                          gemv(stage2(16, 32, 256, 4, true, Stage2Mode::atomic, 0), ring),
                                          gemv(stage2(16, 64, 512, 16, true, Stage2Mode::atomic, 0), ring)}) {
                INFO(kernels::kernel_name(c) << " at " << tokens << " tokens");
                const std::vector<float> out = run_stage2(c, p);
                const double mismatch = data::mismatch_fraction(p.ref2, out, 0.02, 0.02);
                const double row_cos = data::worst_row_cosine_difference(p.ref2, out, size_t(kShape.model_dim));
                UNSCOPED_INFO("mismatch " << mismatch << " worst row cosine diff " << row_cos);
                CHECK(mismatch <= 0.001);
                CHECK(row_cos < 1e-3);
            }
        }
    }
}

TEST_CASE("the deliberately wrong variant fails the row metric", "[gpu][kernels]") {
    const Problem& p = problem();
    const Stage1Out r = run_stage1(stage1(32, 128, 256, 4, false, false), /*test_break=*/1);
    CHECK(data::worst_row_cosine_difference(p.ref1, r.values, size_t(kShape.inter_dim)) > 0.1);
}
