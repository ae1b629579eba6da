#include "kernels/moetune_kernel_rules.h"

#include "kernels/kernel_name.h"

namespace moetune::kernels {

std::optional<std::string> moetune_kernel_problem(std::string_view name, Stage stage,
                                                  std::optional<long long> block_m) {
    std::string why;
    const std::optional<KernelConfig> config = parse_kernel_name(name, &why);
    if (!config) return "is not a moetune kernel: " + why;
    if (config->stage != stage) return "is a stage-" + std::to_string(stage_number(config->stage)) + " kernel";
    const int walked = sort_block_m(*config);
    if (block_m && walked != *block_m)
        return "walks sort blocks of " + std::to_string(walked) + " rows, the row's block_m is " +
               std::to_string(*block_m);
    return std::nullopt;
}

}  // namespace moetune::kernels
