// FusedMoe::weight_bytes, lay_out_weights, rebase_weights and code_weights_e4m3: the expert weights'
// sizes, their logical -> kernel layout copy (measure/weight_layout_gpu.h, the permutation the
// tuner's measurements use), its rebased copy (measure/weight_rebase_gpu.h) and w2's values in the
// e4m3 code, for weights in the caller's device memory.
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "formats/e2m1_code.h"
#include "formats/weight_layout.h"
#include "gpu/stream.h"
#include "measure/harness_kernels.h"
#include "measure/weight_layout_gpu.h"
#include "measure/weight_rebase_gpu.h"
#include "moetune/fused_moe.h"
#include "rtc/kernel_cache.h"
#include "runtime/cache_dir.h"

namespace moetune {
namespace {

using formats::WeightRole;

// The key's w1 (gate_up) or w2 (down) dims, by the rule the tuner's measurements lay weights out with.
formats::ExpertWeightDims dims(const MoeShapeKey& s, WeightRole role) {
    return measure::expert_weight_dims({.model_dim = s.model_dim, .inter_dim = s.inter_dim, .experts = s.experts},
                                       role);
}

}  // namespace

ExpertWeightBytes FusedMoe::weight_bytes(const MoeShapeKey& shape) {
    const formats::ExpertWeightDims w1 = dims(shape, WeightRole::gate_up), w2 = dims(shape, WeightRole::down);
    return {measure::weight_tensor_bytes(w1, false), measure::weight_tensor_bytes(w1, true),
            measure::weight_tensor_bytes(w2, false), measure::weight_tensor_bytes(w2, true)};
}

RebasedWeightBytes FusedMoe::rebased_weight_bytes(const MoeShapeKey& shape) {
    const formats::ExpertWeightDims w1 = dims(shape, WeightRole::gate_up), w2 = dims(shape, WeightRole::down);
    return {measure::rebased_tensor_bytes(w1, false), measure::rebased_tensor_bytes(w1, true),
            measure::rebased_tensor_bytes(w2, false), measure::rebased_tensor_bytes(w2, true)};
}

namespace {

// Both tensors of the kernel layout through `tensor` (measure::rebase_weights_gpu or
// fp4_weight_blocks_gpu) into out = {w1, w1_base, w2, w2_base} (Fp4WeightBlocksOut is the same type);
// `what` names the caller in errors.
template <class Tensor>
void each_tensor(const char* what, const MoeShapeKey& shape, const ExpertWeights& kernel_layout,
                 const RebasedWeightsOut& out, void* stream, const FusedMoeOptions& options, Tensor tensor) {
    for (const void* p : std::initializer_list<const void*>{kernel_layout.w1, kernel_layout.w1_scale, kernel_layout.w2,
                                                            kernel_layout.w2_scale, out.w1, out.w1_base, out.w2,
                                                            out.w2_base})
        if (!p) throw std::invalid_argument(std::string(what) + ": a weight buffer is null");
    const rtc::KernelCache cache(runtime::cache_dir(options));
    const measure::HarnessKernels kernels(&cache);
    const gpu::Stream s = gpu::Stream::borrow(stream);
    const auto bytes = [](const void* p) { return static_cast<const uint8_t*>(p); };
    const auto to = [](void* p) { return static_cast<uint8_t*>(p); };
    tensor(kernels, dims(shape, WeightRole::gate_up), bytes(kernel_layout.w1), bytes(kernel_layout.w1_scale), to(out.w1),
           to(out.w1_base), s);
    tensor(kernels, dims(shape, WeightRole::down), bytes(kernel_layout.w2), bytes(kernel_layout.w2_scale), to(out.w2),
           to(out.w2_base), s);
    s.synchronize();  // the kernels' module is unloaded on return
}

}  // namespace

void FusedMoe::rebase_weights(const MoeShapeKey& shape, const ExpertWeights& kernel_layout,
                              const RebasedWeightsOut& rebased, void* stream, const FusedMoeOptions& options) {
    each_tensor("FusedMoe::rebase_weights", shape, kernel_layout, rebased, stream, options,
                [](auto&&... args) { measure::rebase_weights_gpu(args...); });
}

Fp4WeightBlockBytes FusedMoe::fp4_weight_block_bytes(const MoeShapeKey& shape) {
    const RebasedWeightBytes rebased = rebased_weight_bytes(shape);
    return {measure::fp4_blocks_bytes(dims(shape, WeightRole::gate_up)), rebased.w1_base,
            measure::fp4_blocks_bytes(dims(shape, WeightRole::down)), rebased.w2_base};
}

void FusedMoe::fp4_weight_blocks(const MoeShapeKey& shape, const ExpertWeights& kernel_layout,
                                 const Fp4WeightBlocksOut& blocks, void* stream, const FusedMoeOptions& options) {
    each_tensor("FusedMoe::fp4_weight_blocks", shape, kernel_layout, blocks, stream, options,
                [](auto&&... args) { measure::fp4_weight_blocks_gpu(args...); });
}

void FusedMoe::lay_out_weights(const MoeShapeKey& shape, const ExpertWeights& logical,
                               const ExpertWeightsOut& kernel_layout, void* stream, const FusedMoeOptions& options) {
    for (const void* p : std::initializer_list<const void*>{logical.w1, logical.w1_scale, logical.w2, logical.w2_scale,
                                                            kernel_layout.w1, kernel_layout.w1_scale, kernel_layout.w2,
                                                            kernel_layout.w2_scale})
        if (!p) throw std::invalid_argument("FusedMoe::lay_out_weights: a weight buffer is null");
    const rtc::KernelCache cache(runtime::cache_dir(options));
    const measure::HarnessKernels kernels(&cache);
    const gpu::Stream s = gpu::Stream::borrow(stream);
    const formats::ExpertWeightDims w1 = dims(shape, WeightRole::gate_up), w2 = dims(shape, WeightRole::down);
    const auto bytes = [](const void* p) { return static_cast<const uint8_t*>(p); };
    const auto out = [](void* p) { return static_cast<uint8_t*>(p); };
    measure::lay_out_mma_k128_gpu(kernels, WeightRole::gate_up, w1, false, bytes(logical.w1), out(kernel_layout.w1), s);
    measure::lay_out_mma_k128_gpu(kernels, WeightRole::gate_up, w1, true, bytes(logical.w1_scale),
                                  out(kernel_layout.w1_scale), s);
    measure::lay_out_mma_k128_gpu(kernels, WeightRole::down, w2, false, bytes(logical.w2), out(kernel_layout.w2), s);
    measure::lay_out_mma_k128_gpu(kernels, WeightRole::down, w2, true, bytes(logical.w2_scale),
                                  out(kernel_layout.w2_scale), s);
    s.synchronize();  // the layout kernels' module is unloaded on return
}

void FusedMoe::code_weights_e4m3(const MoeShapeKey& shape, const ExpertWeights& logical,
                                 const E4m3CodedWeightsOut& coded, void* stream, const FusedMoeOptions& options) {
    for (const void* p : std::initializer_list<const void*>{logical.w1, logical.w2, coded.w1, coded.w2})
        if (!p) throw std::invalid_argument("FusedMoe::code_weights_e4m3: a weight buffer is null");
    const rtc::KernelCache cache(runtime::cache_dir(options));
    const measure::HarnessKernels kernels(&cache);
    const gpu::Stream s = gpu::Stream::borrow(stream);
    measure::lay_out_mma_k128_gpu(kernels, WeightRole::gate_up, dims(shape, WeightRole::gate_up), false,
                                  static_cast<const uint8_t*>(logical.w1), static_cast<uint8_t*>(coded.w1), s,
                                  formats::e2m1_e4m3_code());
    measure::lay_out_mma_k128_gpu(kernels, WeightRole::down, dims(shape, WeightRole::down), false,
                                  static_cast<const uint8_t*>(logical.w2), static_cast<uint8_t*>(coded.w2), s,
                                  formats::e2m1_e4m3_code());
    s.synchronize();  // the layout kernels' module is unloaded on return
}

}  // namespace moetune
