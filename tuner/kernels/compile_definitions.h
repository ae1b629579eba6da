#pragma once
// The hand-over to the kernel templates (kernel_templates/moe_stage1.hip, moe_stage2.hip): a config
// becomes preprocessor definitions, which rtc turns into -D options (or a template's constants).
// The full list with meanings is in docs/kernel-names.md, "Compile-time parameters".
#include <string>
#include <vector>

#include "kernels/kernel_config.h"

namespace moetune::kernels {

struct Definition {
    std::string name;   // MOETUNE_TILE_M, ...
    std::string value;  // always an integer literal, except MOETUNE_KERNEL_NAME (an identifier)
};

// Definitions for one config, in a fixed order. Only the parameters of the config's stage are
// emitted. Throws std::invalid_argument when config_error(c) or no warp grid fits the tile.
std::vector<Definition> compile_definitions(const KernelConfig& c);

}  // namespace moetune::kernels
