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

    // The entry point is named after the config, so profiles and errors show the name.
    std::vector<Definition> defs = {
        {"MOETUNE_KERNEL_NAME", name},
        {"MOETUNE_TILE_M", num(c.tile_m)},
        {"MOETUNE_TILE_N", num(c.tile_n)},
        {"MOETUNE_TILE_K", num(c.tile_k)},
        {"MOETUNE_WARPS", num(c.warps)},
        {"MOETUNE_MIN_WORKGROUPS", num(c.min_workgroups)},
        {"MOETUNE_WARPS_M", num(grid->warps_m)},
        {"MOETUNE_WARPS_N", num(grid->warps_n)},
        {"MOETUNE_WARPS_K", num(c.k_warps)},
        {"MOETUNE_NONTEMPORAL_WEIGHTS", num(c.nontemporal_weights)},
        {"MOETUNE_SHARED_OPERANDS", num(c.shared_operands)},
        {"MOETUNE_WGMMA", num(c.wgmma)},
        {"MOETUNE_WARP_SPECIALISED", num(c.warp_specialised)},
        {"MOETUNE_FP4_WEIGHTS", num(c.fp4_weights)},
        {"MOETUNE_WEIGHTS_READ_ONCE", num(c.weights_read_once)},
        {"MOETUNE_MX_ROWS", num(c.mx_rows)},
        {"MOETUNE_EIGHT_ROWS", num(c.eight_rows)},
        {"MOETUNE_MMA_PATH", num(static_cast<int>(c.mma))},
    };
    if (c.stage == Stage::gate_up) {
        defs.push_back({"MOETUNE_FUSED_MXFP8_OUT", num(c.fused_mxfp8_out)});
    } else {
        defs.push_back({"MOETUNE_STAGE2_MODE", num(static_cast<int>(c.mode))});
        defs.push_back({"MOETUNE_SORT_BLOCK_M", num(sort_block_m(c))});
    }
    return defs;
}

KernelSource kernel_source(const KernelConfig& c) {
    std::vector<Definition> defs = compile_definitions(c);
    std::string entry = defs.front().value;  // MOETUNE_KERNEL_NAME
    const bool stage1 = c.stage == Stage::gate_up;
    const char* file = c.gemv ? (stage1 ? "moe_gemv_stage1.hip" : "moe_gemv_stage2.hip")
                              : (stage1 ? "moe_stage1.hip" : "moe_stage2.hip");
    return KernelSource{file, std::move(entry), std::move(defs)};
}

}  // namespace moetune::kernels
