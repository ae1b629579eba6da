#include "kernels/candidates.h"

#include <initializer_list>
#include <stdexcept>
#include <utility>

#include "kernels/resource_model.h"
#include "kernels/shape_heuristics.h"
#include "kernels/static_checks.h"

namespace moetune::kernels {
namespace {

// Replaces every config of `space` by one copy per value, set by `set`.
template <class T, class Setter>
void vary(std::vector<KernelConfig>& space, std::initializer_list<T> values, Setter set) {
    std::vector<KernelConfig> next;
    next.reserve(space.size() * values.size());
    for (const KernelConfig& c : space)
        for (const T& v : values) {
            KernelConfig d = c;
            set(d, v);
            next.push_back(d);
        }
    space = std::move(next);
}

}  // namespace

// The space, chosen for the H200 and the shapes of the reference tables:
//  - tile_m: every sort block 16..128 (few tokens: 16 for many workgroups and little padding;
//    thousands of tokens: 128 to reuse each weight tile across more rows).
//  - tile_n 64/128/256: narrow tiles put enough workgroups on 132 SMs when only ~5 experts are
//    active (stage 1 at 1 token with tile_n 64: 5 x 4608/64 = 360); wide ones amortise A loads.
//  - tile_k x pipeline depth: 128 x 4 or 256 x 2, i.e. 512 K elements in flight either way, as
//    4 small or 2 large steps (the two shapes CUTLASS-style pipelines settle on); deeper
//    pipelines of large steps do not fit large tiles and add nothing to small ones.
//  - warps 4 and 8; 2 only for tiles too small to split among 4 (stage 1 t16x64).
//  - non-temporal weight loads on/off; persistent scheduling on/off (skips the empty sort blocks
//    that dominate the grid at few tokens).
//  - stage 1: gate/up interleaved always (the SiLU(gate)*up epilogue needs both halves of a column
//    in one warp); fused MXFP8 output on/off (off = bf16 out plus a separate quant, as AITER times it).
//  - stage 2: atomic/reduce; tile_m equal to the sort block or half of it (_sbm, as AITER's tuner).
// Split-K is left out: the narrow N tiles already fill the device at one token, and splitting K
// would break the fused SiLU/quant epilogue into an fp32 partial round trip.
std::vector<KernelConfig> search_space(Stage stage) {
    KernelConfig base;
    base.stage = stage;
    std::vector<KernelConfig> space = {base};
    vary(space, {16, 32, 64, 128}, [](KernelConfig& c, int v) { c.tile_m = v; });
    vary(space, {64, 128, 256}, [](KernelConfig& c, int v) { c.tile_n = v; });
    vary(space, {std::pair{128, 4}, std::pair{256, 2}}, [](KernelConfig& c, std::pair<int, int> k_depth) {
        c.tile_k = k_depth.first;
        c.pipeline_stages = k_depth.second;
    });
    vary(space, {2, 4, 8}, [](KernelConfig& c, int v) { c.warps = v; });
    vary(space, {false, true}, [](KernelConfig& c, bool v) { c.nontemporal_weights = v; });
    vary(space, {false, true}, [](KernelConfig& c, bool v) { c.persistent = v; });
    if (stage == Stage::gate_up) {
        vary(space, {true}, [](KernelConfig& c, bool v) { c.gate_up_interleaved = v; });
        vary(space, {true, false}, [](KernelConfig& c, bool v) { c.fused_mxfp8_out = v; });
    } else {
        vary(space, {Stage2Mode::atomic, Stage2Mode::reduce}, [](KernelConfig& c, Stage2Mode v) { c.mode = v; });
        vary(space, {false, true}, [](KernelConfig& c, bool half) { c.sort_block = half ? 2 * c.tile_m : 0; });
    }
    std::erase_if(space, [](const KernelConfig& c) {
        if (c.warps == 2) {
            KernelConfig four = c;
            four.warps = 4;
            if (warp_grid(four)) return true;  // 2 warps only where 4 do not fit
        }
        return config_error(c).has_value();  // e.g. sbm256 for tile_m 128
    });
    return space;
}

CandidateList enumerate_candidates(Stage stage, const data::MoeShape& shape, const DeviceLimits& limits,
                                   const EnumerationOptions& options) {
    if (auto err = shape_error(shape)) throw std::invalid_argument(*err);
    CandidateList out;
    for (const KernelConfig& c : search_space(stage)) {
        auto reason = static_prune_reason(c, shape, limits);
        if (!reason && options.heuristics) reason = block_m_heuristic_reason(sort_block_m(c), shape);
        if (reason) out.pruned.push_back({c, std::move(*reason)});
        else out.kept.push_back(c);
    }
    return out;
}

}  // namespace moetune::kernels
