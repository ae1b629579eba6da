#pragma once
// The launch sequence of the fused MoE's two stages, in one place for the tuner's measurements
// (measure/candidate_launch.h) and the library (runtime/), so a tuned row's timings describe exactly
// what libmoetune runs (aiter-fmoe-format.md §3.7, §5):
//   stage 1, _fp8     the kernel writes MXFP8 values + e8m0 scales (stage 2's input)
//   stage 1, bf16 out the kernel, then the MXFP8 quantisation of its output (dynamic scales, as
//                     AITER's unfused path quantises it)
//   stage 1, wide out for a stage 2 that reads the wide layout (kernels::reads_wide_activations):
//                     a _fp8 kernel writes its MXFP8 output widened; otherwise the quantisation
//                     writes it widened (mxfp8_quant_wide), and no MXFP8 values or scales
//   rebased rows      a kernel that reads rebased rows (kernels::reads_rebased_rows) reads them as
//                     given (act_rebased, act_base), like the wide layout: the library quantises the
//                     hidden states straight to them (mxfp8_quant_rebased) and stage 1 writes them for
//                     such a stage 2 (rebased_out: its bf16 output quantised straight to them, or a
//                     _fp8 kernel's MXFP8 output rebased, mxfp8_rebase.hip); the register-fed FP8
//                     _wgmma kernels' rows are interleaved (kernels::reads_interleaved_rows). Such a
//                     kernel also reads the weights' copy it needs (kernels::weight_copy; made once,
//                     like the kernel layout)
//   MXFP8 rows        a register-fed kernel that reads MXFP8 rows (kernels::reads_mx_rows) reads act and
//                     act_scale with each block's words interleaved: the library quantises the hidden
//                     states so, and stage 1 writes out so for such a stage 2 (out_interleaved: a
//                     register-fed _fp8 kernel's epilogue, or the quantisation of its bf16 output);
//                     nothing runs between a register-fed _fp8 stage 1 and such a stage 2
//   stage 2, atomic   zeroing the output (AITER's moe_buf.zero_()), then the kernel's atomic adds;
//                     the library zeroes it in the sort instead (Stage2Buffers::out_zeroed), as
//                     AITER's moe_sorting does, which saves a graph node; a tuned row's us2 keeps the
//                     separate zeroing, so it is at worst a little pessimistic
//   stage 2, reduce   the kernel's per-slot partials, then moe_reduce.hip's sum over top-k
//   f16 rows          a _gemv kernel (kernels::reads_f16_rows) reads its rows as f16 in its row order with
//                     MXFP8's scales (act_f16, act_scale) and its weights' f16 copy; a _gemv stage 1 writes
//                     such rows (f16_out, out_scale) for a _gemv stage 2, nothing between them. The library
//                     does not run them yet (the tuner measures them; BucketData::f16_input)
//   routed rows       at a few tokens a register-fed FP8 stage 1 may be given the routing and find its
//                     rows in it (finds_rows_in_routing): the library lets it start before the sort
//                     ends; the tuner's measurements give it the sort, as every other kernel
// Everything is enqueued on one stream into buffers the caller owns: nothing is allocated, so a
// sequence can be captured in a graph.
#include <cstdint>

#include "data/moe_problem.h"
#include "data_gpu/data_kernels.h"
#include "data_gpu/device_moe_data.h"
#include "gpu/module.h"
#include "gpu/stream.h"
#include "kernels/kernel_config.h"

namespace moetune::launch {

// One compiled stage kernel bound to one problem (its token count included): the grid is fixed here.
struct StageLaunch {
    // `kernel` is the config's compiled entry point and must outlive this object. Throws
    // std::invalid_argument when the config does not tile the shape (kernels::launch_geometry).
    StageLaunch(const kernels::KernelConfig& config, const gpu::Kernel& kernel, const data::MoeShape& shape);

    kernels::KernelConfig config;
    const gpu::Kernel& kernel;
    data::MoeShape shape;
    gpu::LaunchShape grid;
};

// The experts' weights of one copy (not the public moetune::ExpertWeights, the caller's four tensors):
// expert e's values at values + e * bytes.values, its scales (or bases) at scales + e * bytes.scales.
struct WeightsByExpert {
    const uint8_t* values = nullptr;
    const uint8_t* scales = nullptr;
    kernels::WeightCopyBytes bytes;
};

// Device buffers of stage 1 for M = shape.tokens.
struct Stage1Buffers {
    const uint8_t* act = nullptr;        // MXFP8 [M, model_dim] e4m3fn
    const uint8_t* act_scale = nullptr;  // [M, model_dim/32] e8m0
    const uint16_t* act_wide = nullptr;  // the same widened, bf16 [M, model_dim]: read instead when
                                         // kernels::reads_wide_activations(config)
    const uint8_t* act_rebased = nullptr;  // the same rebased, [M, model_dim] e4m3fn and [M] e8m0: read
    const uint8_t* act_base = nullptr;     // instead when kernels::reads_rebased_rows(config)
    const uint8_t* w1 = nullptr;         // formats::WeightLayout::mma_k128, role gate_up
    const uint8_t* w1_scale = nullptr;
    const uint8_t* w1_rebased = nullptr;  // the same rebased (common/mx_rebase.h: e4m3 [E*2*inter,
    const uint8_t* w1_base = nullptr;     // model_dim] in common/rebased_weight_layout.h's blocks, bases
                                          // [E*2*inter]): read instead when kernels::weight_copy(config) says so
    const uint8_t* w1_e4m3_coded = nullptr;  // the kernel layout's values in the e4m3 code, read with
                                             // w1_scale when kernels::weight_copy(config) says so
    const uint8_t* w1_fp4_blocks = nullptr;  // the same as FP4 blocks (common/fp4_weight_blocks.h), read
                                             // with w1_base when kernels::weight_copy(config) says so
    const uint16_t* act_f16 = nullptr;          // the activations' values as f16 rows, [M, model_dim], read
                                                // with act_scale when kernels::reads_f16_rows(config)
    const uint8_t* w1_f16_tiles = nullptr;      // the _gemv copy (common/mx_f16_gemv.h): values and scale
    const uint8_t* w1_f16_tile_scales = nullptr;  // words, read when kernels::weight_copy(config) says so
    uint16_t* f16_out = nullptr;    // a _gemv kernel's output, f16 rows [M*topk, inter] with out_scale
    uint16_t* bf16_out = nullptr;   // bf16 [M*topk, inter]: the kernel's output unless it is _fp8
    uint8_t* out = nullptr;         // MXFP8 [M*topk, inter] e4m3fn: what stage 2 reads
    uint8_t* out_scale = nullptr;   // [M*topk, inter/32] e8m0
    // out with each 32-byte block's words interleaved (stage 2 reads MXFP8 rows, kernels::reads_mx_rows).
    bool out_interleaved = false;
    // Set when stage 2 reads the wide layout: bf16 [M*topk, inter], what stage 2 reads then, and
    // then the only output (out / out_scale are left as they are).
    uint16_t* wide_out = nullptr;
    // Set when stage 2 reads rebased rows: [M*topk, inter] e4m3fn and [M*topk] e8m0, what stage 2
    // reads then, interleaved when it reads them so (kernels::reads_interleaved_rows).
    uint8_t* rebased_out = nullptr;
    uint8_t* rebased_out_base = nullptr;
    bool rebased_out_interleaved = false;
    // The kernel may start while the stream's previous kernel (the activation quantisation)
    // finishes (gpu::LaunchShape::overlap_previous); it waits for it before reading anything.
    bool overlap_previous = false;
    // Where finds_rows_in_routing(stage): the routing's expert ids ([M, topk]), from which the kernel
    // finds its tile's rows and expert itself (MoeStage1Args::topk_ids) and then starts its weights'
    // loads before it waits for the previous kernel; it reads nothing of `sorted`, so the sort need
    // not have finished when it is enqueued. `sort_done` (the event recorded after the sort on another
    // stream) is then waited for after the kernel, before what follows it: stage 2 reads the sort
    // before it waits for the kernel before it (Stage2Buffers::overlap_previous).
    const int* topk_ids = nullptr;
    const gpu::Event* sort_done = nullptr;
    // Set (stage2_weights): a register-fed kernel asks L2 for its expert's share of these, stage 2's
    // weights, while it streams its own (MoeStage1Args::next_w), so that stage 2 finds them there.
    WeightsByExpert stage2_weights;
};

// Device buffers of stage 2 for M = shape.tokens.
struct Stage2Buffers {
    const uint8_t* act = nullptr;        // MXFP8 [M*topk, inter] (Stage1Buffers::out)
    const uint8_t* act_scale = nullptr;  // [M*topk, inter/32]
    const uint16_t* act_wide = nullptr;  // Stage1Buffers::wide_out, when reads_wide_activations(config)
    const uint8_t* act_rebased = nullptr;  // Stage1Buffers::rebased_out and rebased_out_base, when
    const uint8_t* act_base = nullptr;     // kernels::reads_rebased_rows(config)
    const uint8_t* w2 = nullptr;         // formats::WeightLayout::mma_k128, role down
    const uint8_t* w2_scale = nullptr;
    const uint8_t* w2_rebased = nullptr;  // the same rebased ([E*model_dim, inter] in blocks, [E*model_dim]), read
    const uint8_t* w2_base = nullptr;     // instead when kernels::weight_copy(config) says so
    const uint8_t* w2_e4m3_coded = nullptr;  // the kernel layout's values in the e4m3 code, read with
                                             // w2_scale when kernels::weight_copy(config) says so
    const uint8_t* w2_fp4_blocks = nullptr;  // as FP4 blocks, read with w2_base likewise
    const uint16_t* act_f16 = nullptr;  // Stage1Buffers::f16_out, with act_scale, when kernels::reads_f16_rows(config)
    const uint8_t* w2_f16_tiles = nullptr;        // the _gemv copy, when kernels::weight_copy(config) says so
    const uint8_t* w2_f16_tile_scales = nullptr;
    uint16_t* partial = nullptr;  // reduce mode: bf16 [M*topk, model_dim]
    uint16_t* out = nullptr;      // bf16 [M, model_dim]
    bool out_zeroed = false;      // atomic mode: out is already zero (moe_sorting_gpu's moe_buf)
    // The kernel may start while stage 1 (or its quantisation) finishes (gpu::LaunchShape::
    // overlap_previous): what it reads before waiting -- the sort, the weights -- was complete
    // before stage 1 started. Ignored when a zeroing of out comes between.
    bool overlap_previous = false;
};

// Whether a stage-1 kernel can find its tile's rows in the routing itself (Stage1Buffers::topk_ids;
// kernel_templates/common/routed_rows.h): the register-fed FP8 kernels, with at most
// kMxRoutedEntriesMax routed rows and no more than the workgroup's threads.
bool finds_rows_in_routing(const StageLaunch& stage);

// What a stage-2 kernel reads as its weights (kernels::weight_copy), by expert.
WeightsByExpert stage2_weights(const StageLaunch& stage, const Stage2Buffers& io);

// Whether a stage-1 kernel can ask L2 for stage 2's weights (Stage1Buffers::stage2_weights): the
// register-fed FP8 kernels, for whole 16-byte pieces.
bool asks_l2_for(const StageLaunch& stage1, const WeightsByExpert& w);

// `sorted` holds the moe_sorting of the routing with the kernel's sort block (kernels::sort_block_m).
void enqueue_stage1(const StageLaunch& stage, const data::DataKernels& data_kernels,
                    const data::DeviceSortedRouting& sorted, const Stage1Buffers& io, const gpu::Stream& stream);
// `reduce`: moe_reduce.hip's kernel (measure::harness_kernel_names::kReduce), run in reduce mode.
void enqueue_stage2(const StageLaunch& stage, const gpu::Kernel& reduce, const data::DeviceSortedRouting& sorted,
                    const Stage2Buffers& io, const gpu::Stream& stream);

}  // namespace moetune::launch
