#pragma once
// The hand-over to the kernel templates: a config becomes the template of its stage
// (kernel_templates/moe_stage1.hip, moe_stage2.hip), the preprocessor definitions that template
// reads, and the name of its extern "C" entry point. Compiling that is rtc's job (the glue is
// tuner/instantiate/); this file knows no compiler. The list with meanings is in
// docs/kernel-names.md, "Compile-time parameters".
#include <string>
#include <vector>

#include "kernels/kernel_config.h"

namespace moetune::kernels {

struct Definition {
    std::string name;   // MOETUNE_TILE_M, ...
    std::string value;  // always an integer literal, except MOETUNE_KERNEL_NAME (an identifier)
};

// Definitions for one config, in a fixed order: exactly the ones the config's template reads.
// Throws std::invalid_argument when config_error(c) or no warp grid fits the tile.
std::vector<Definition> compile_definitions(const KernelConfig& c);

struct KernelSource {
    std::string template_path;             // embedded template, relative to kernel_templates/
    std::string entry_point;               // the kernel name: the template's extern "C" symbol
    std::vector<Definition> definitions;   // compile_definitions(c)
};

// Throws like compile_definitions.
KernelSource kernel_source(const KernelConfig& c);

}  // namespace moetune::kernels
