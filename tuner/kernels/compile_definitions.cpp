#include "kernels/compile_definitions.h"

#include <stdexcept>

#include "kernels/kernel_name.h"
#include "kernels/resource_model.h"

namespace moetune::kernels {

std::vector<Definition> compile_definitions(const KernelConfig& c) {
    const std::string name = kernel_name(c);  // validates c
    const auto grid = warp_grid(c);
    if (!grid) throw std::invalid_argument(name + ": " + std::to_string(c.warps) + " warps cannot split the tile");
    auto num = [](int v) { return std::to_string(v); };

    // The kernel's entry point is named after the config, so profiles and errors show the name.
    std::vector<Definition> defs = {
        {"MOETUNE_KERNEL_NAME", name},
        {"MOETUNE_STAGE", num(stage_number(c.stage))},
        {"MOETUNE_A_DTYPE", num(static_cast<int>(c.act))},
        {"MOETUNE_W_DTYPE", num(static_cast<int>(c.weight))},
        {"MOETUNE_OUT_DTYPE", num(static_cast<int>(c.out))},
        {"MOETUNE_TILE_M", num(c.tile_m)},
        {"MOETUNE_TILE_N", num(c.tile_n)},
        {"MOETUNE_TILE_K", num(c.tile_k)},
        {"MOETUNE_WARPS", num(c.warps)},
        {"MOETUNE_WARPS_M", num(grid->warps_m)},
        {"MOETUNE_WARPS_N", num(grid->warps_n)},
        {"MOETUNE_PIPELINE_STAGES", num(c.pipeline_stages)},
        {"MOETUNE_NONTEMPORAL_WEIGHTS", num(c.nontemporal_weights)},
        {"MOETUNE_PERSISTENT", num(c.persistent)},
    };
    if (c.stage == Stage::gate_up) {
        defs.push_back({"MOETUNE_GATE_UP_INTERLEAVED", num(c.gate_up_interleaved)});
        defs.push_back({"MOETUNE_FUSED_MXFP8_OUT", num(c.fused_mxfp8_out)});
    } else {
        defs.push_back({"MOETUNE_STAGE2_MODE", num(static_cast<int>(c.mode))});
        defs.push_back({"MOETUNE_SORT_BLOCK_M", num(sort_block_m(c))});
    }
    return defs;
}

}  // namespace moetune::kernels
