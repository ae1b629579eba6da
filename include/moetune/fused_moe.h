#pragma once
// libmoetune, part 2 of 2: the fused MoE (FP8 activations x MXFP4 weights) on the GPU with the
// kernels a tuned table chose, on the caller's device buffers and stream (docs/library.md).
// Standard library only: streams and buffers are passed as the vendor's plain pointers.
//
//   moetune::FusedMoe moe(shape, moetune::TunedTables::load({"tuned.csv"}));
//   moe.prepare(4096);                     // compiles or loads every kernel up to 4096 tokens
//   moe.run(args, stream);                 // capturable in a CUDA/HIP graph
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "moetune/export.h"
#include "moetune/tuned_tables.h"

namespace moetune {

struct FusedMoeOptions {
    // Compiled-kernel cache; "" = moetune's default ($XDG_CACHE_HOME/moetune, else ~/.cache/moetune).
    std::string cache_dir;
    // Receives the line logged once per bucket that runs the heuristic default; empty = std::clog.
    std::function<void(const std::string&)> log;
    // On NVIDIA sm_90+ each stage is launched to overlap the kernel before it (programmatic dependent
    // launch: it starts on the SMs that kernel leaves idle and waits inside for its output). false
    // launches every kernel the ordinary way: to compare, or under a tool that serialises kernels.
    bool overlap_launches = true;
    // true: where stage 2's weights of the routed experts fit in L2 (one token on DSv4.1), a
    // register-fed stage 1 asks L2 for them while it streams its own, so that stage 2 reads them from
    // there. Off by default: on an H100 it made one token 0.8 us slower where each call routes to
    // other experts (as a model's layers do), and faster only where the same experts' weights stayed
    // in L2 from the call before (docs/kernel-design.md, "Stage 2's weights asked for during stage 1").
    bool l2_stage2_weights = false;
};

// One call's device buffers, all owned by the caller. M = tokens.
struct FusedMoeArgs {
    int tokens = 0;
    const void* hidden = nullptr;           // bf16 [M, model_dim]
    const int32_t* topk_ids = nullptr;      // [M, topk] expert ids in [0, experts)
    const float* topk_weights = nullptr;    // [M, topk] routing weights, applied in stage 2
    const void* w1 = nullptr;               // kernel layout (FusedMoe::lay_out_weights)
    const void* w1_scale = nullptr;
    const void* w2 = nullptr;
    const void* w2_scale = nullptr;
    void* out = nullptr;                    // bf16 [M, model_dim], 16-byte aligned
    // The weights rebased (FusedMoe::rebase_weights): needed when a plan's kernel reads them
    // (FusedMoe::reads_rebased_weights after prepare()), else may stay null. Last, so that
    // initialisers written before they existed keep their meaning.
    const void* w1_rebased = nullptr;
    const void* w1_base = nullptr;
    const void* w2_rebased = nullptr;
    const void* w2_base = nullptr;
    // The weights' values in the e4m3 code (FusedMoe::code_weights_e4m3), read with w1_scale /
    // w2_scale: needed when a plan's kernel reads them (FusedMoe::reads_e4m3_coded_weights after
    // prepare()).
    const void* w2_e4m3_coded = nullptr;
    const void* w1_e4m3_coded = nullptr;
    // The weights as FP4 blocks (FusedMoe::fp4_weight_blocks), read with w1_base / w2_base (the
    // same bases as the rebased weights'): needed when a plan's kernel reads them
    // (FusedMoe::reads_fp4_weight_blocks after prepare()).
    const void* w1_fp4_blocks = nullptr;
    const void* w2_fp4_blocks = nullptr;
};

// Device pointers to one rank's expert weights (all `experts` of the shape), in either layout:
//   w1       [experts, 2*inter_dim, model_dim/2] bytes: FP4 e2m1 pairs, the even element in the low
//            nibble; rows [0, inter_dim) gate, [inter_dim, 2*inter_dim) up
//   w1_scale [experts, 2*inter_dim, model_dim/32] e8m0, one per 32 elements along model_dim
//   w2       [experts, model_dim, inter_dim/2]
//   w2_scale [experts, model_dim, inter_dim/32]
// Both layouts have the same sizes (FusedMoe::weight_bytes).
struct ExpertWeights {
    const void* w1 = nullptr;
    const void* w1_scale = nullptr;
    const void* w2 = nullptr;
    const void* w2_scale = nullptr;
};
struct ExpertWeightsOut {
    void* w1 = nullptr;
    void* w1_scale = nullptr;
    void* w2 = nullptr;
    void* w2_scale = nullptr;
};
struct ExpertWeightBytes {
    std::size_t w1 = 0, w1_scale = 0, w2 = 0, w2_scale = 0;
};

// The weights rebased for the FP8 warpgroup-product kernels: per weight row of the kernel layout one
// e8m0 base (its largest block scale) and the row as e4m3 relative to it ([experts*2*inter_dim,
// model_dim] and [experts*2*inter_dim] for w1; [experts*model_dim, inter_dim] and [experts*model_dim]
// for w2), twice the bytes of the FP4 weights.
struct RebasedWeightBytes {
    std::size_t w1 = 0, w1_base = 0, w2 = 0, w2_base = 0;
};
struct RebasedWeightsOut {
    void* w1 = nullptr;
    void* w1_base = nullptr;
    void* w2 = nullptr;
    void* w2_base = nullptr;
};

// The weights as FP4 blocks for the warp-specialised kernels that rebase them themselves (_f4w): the
// kernel layout's codes in blocks of 64 weight rows with a byte per MX block (w1: experts*2*inter_dim
// rows of model_dim/128 * 68 bytes; w2: experts*model_dim rows of inter_dim/128 * 68 bytes), about
// half the rebased weights' bytes, and the same bases as rebase_weights writes: the rebased copy's
// four buffers, other values in w1 and w2.
using Fp4WeightBlockBytes = RebasedWeightBytes;
using Fp4WeightBlocksOut = RebasedWeightsOut;

// The weights' values in the e4m3 code the register-fed FP8 kernels decode: the kernel layout's
// values, each 4-byte word recoded (FusedMoe::weight_bytes().w1 and .w2 bytes; the scales stay
// lay_out_weights' w1_scale and w2_scale).
struct E4m3CodedWeightsOut {
    void* w1 = nullptr;
    void* w2 = nullptr;
};

class MOETUNE_API FusedMoe {
public:
    // Uses the current device: its arch, and the AITER key values gfx ("sm_90" on NVIDIA) and
    // cu_num (SMs / CUs) that tuned rows must match. Throws std::invalid_argument for a shape the
    // kernels do not implement (saying why), std::runtime_error without a usable GPU.
    FusedMoe(MoeShapeKey shape, TunedTables tables, FusedMoeOptions options = {});
    ~FusedMoe();
    FusedMoe(FusedMoe&&) noexcept;
    FusedMoe& operator=(FusedMoe&&) noexcept;

    const std::string& gfx() const;
    int cu_num() const;

    // The tuned row of tokens' bucket, else the heuristic default (logged once per bucket through
    // FusedMoeOptions::log, as AITER logs "using 2stage default"). A row naming kernels moetune does
    // not build (another kernel family's) is logged and passed over the same way. Throws TableError
    // for a row whose moetune kernels cannot run this shape, std::invalid_argument for tokens < 1.
    KernelPlan plan(int tokens) const;

    // Compiles (or loads from the cache) the kernels of every bucket up to max_tokens' and sizes the
    // workspace, so run() with up to max_tokens tokens allocates nothing and can be captured in a
    // graph. A larger max_tokens reallocates the workspace: capture graphs again after it.
    void prepare(int max_tokens);
    int prepared_tokens() const;  // 0 before prepare()

    // Enqueues on `stream` (hipStream_t / cudaStream_t; nullptr = the default stream): moe_sorting
    // with the plan's block_m (zeroing `out` for an atomic stage 2; on this object's side stream,
    // forked from and joined back into `stream` by events, so it runs beside the quantisation), the
    // MXFP8 quantisation of `hidden` (dynamic per-1x32 scales, AITER's), stage 1 (+ the
    // quantisation of its output unless the kernel fuses it), stage 2 (atomic adds, or per-slot
    // partials then a reduce). Call it on the device this object was made on, from one stream at a
    // time. Throws std::invalid_argument
    // for tokens beyond prepared_tokens() or a missing buffer, std::runtime_error when the GPU refuses
    // a launch.
    void run(const FusedMoeArgs& args, void* stream);

    // Whether a prepared plan's kernel reads the rebased weights (FusedMoeArgs::w1_rebased ...);
    // false before prepare().
    bool reads_rebased_weights() const;
    // Whether a prepared plan's kernel reads weights in the e4m3 code (FusedMoeArgs::w1_e4m3_coded,
    // w2_e4m3_coded); false before prepare().
    bool reads_e4m3_coded_weights() const;
    // Whether a prepared plan's kernel reads the FP4 weight blocks (FusedMoeArgs::w1_fp4_blocks,
    // w2_fp4_blocks, with w1_base / w2_base); false before prepare().
    bool reads_fp4_weight_blocks() const;

    static ExpertWeightBytes weight_bytes(const MoeShapeKey& shape);
    // The sizes of rebase_weights' outputs.
    static RebasedWeightBytes rebased_weight_bytes(const MoeShapeKey& shape);
    // The sizes of fp4_weight_blocks' outputs.
    static Fp4WeightBlockBytes fp4_weight_block_bytes(const MoeShapeKey& shape);

    // Copies weights from the logical layout above (as AITER stores them unshuffled) into the layout
    // the kernels read, device to device on `stream`; `kernel_layout` must not overlap `logical`.
    // Returns when the copy is complete. Uses the current device and compiles (or loads from the
    // cache) the layout kernels for the call.
    static void lay_out_weights(const MoeShapeKey& shape, const ExpertWeights& logical,
                                const ExpertWeightsOut& kernel_layout, void* stream,
                                const FusedMoeOptions& options = {});
    // Rebases weights in the kernel layout (lay_out_weights' output) for the kernels that read them,
    // device to device on `stream`. Returns when it is complete.
    static void rebase_weights(const MoeShapeKey& shape, const ExpertWeights& kernel_layout,
                               const RebasedWeightsOut& rebased, void* stream, const FusedMoeOptions& options = {});
    // Lays out w1's and w2's values (logical layout; the scales are not read) like lay_out_weights, in
    // the e4m3 code (E4m3CodedWeightsOut), device to device on `stream`. Returns when it is complete.
    static void code_weights_e4m3(const MoeShapeKey& shape, const ExpertWeights& logical,
                                  const E4m3CodedWeightsOut& coded, void* stream, const FusedMoeOptions& options = {});
    // Weights in the kernel layout as FP4 blocks and their bases (Fp4WeightBlocksOut), device to
    // device on `stream`. Returns when it is complete.
    static void fp4_weight_blocks(const MoeShapeKey& shape, const ExpertWeights& kernel_layout,
                                  const Fp4WeightBlocksOut& blocks, void* stream, const FusedMoeOptions& options = {});

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace moetune
