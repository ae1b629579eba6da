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

std::vector<KernelConfig> search_space(Stage stage) {
    KernelConfig base;
    base.stage = stage;
    std::vector<KernelConfig> space = {base};
    vary(space, {16, 32, 64, 128}, [](KernelConfig& c, int v) { c.tile_m = v; });
    vary(space, {64, 128, 256}, [](KernelConfig& c, int v) { c.tile_n = v; });
    vary(space, {128, 256, 512}, [](KernelConfig& c, int v) { c.tile_k = v; });
    if (stage == Stage::gate_up) vary(space, {2, 4, 8}, [](KernelConfig& c, int v) { c.warps = v; });
    else vary(space, {4, 8}, [](KernelConfig& c, int v) { c.warps = v; });
    vary(space, {false, true}, [](KernelConfig& c, bool v) { c.nontemporal_weights = v; });
    if (stage == Stage::gate_up) {
        vary(space, {true, false}, [](KernelConfig& c, bool v) { c.fused_mxfp8_out = v; });
    } else {
        vary(space, {Stage2Mode::atomic, Stage2Mode::reduce}, [](KernelConfig& c, Stage2Mode v) { c.mode = v; });
        vary(space, {false, true}, [](KernelConfig& c, bool half) { c.sort_block = half ? 2 * c.tile_m : 0; });
    }
    std::erase_if(space, [](const KernelConfig& c) { return config_error(c) || !warp_grid(c); });
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
