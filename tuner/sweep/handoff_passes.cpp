#include "sweep/handoff_passes.h"

#include <set>
#include <string_view>

namespace moetune::sweep {

int candidate_kind(const kernels::KernelConfig& c) {
    return c.stage == kernels::Stage::gate_up ? static_cast<int>(kernels::stage1_output(c))
                                              : static_cast<int>(kernels::stage2_input(c));
}

std::vector<kernels::StageHandoff> handoff_passes(const std::vector<kernels::KernelConfig>& configs) {
    std::set<kernels::Stage1Output> outputs;
    std::set<kernels::Stage2Input> inputs;
    for (const kernels::KernelConfig& c : configs) {
        if (c.stage == kernels::Stage::gate_up) outputs.insert(kernels::stage1_output(c));
        else inputs.insert(kernels::stage2_input(c));
    }
    std::set<kernels::StageHandoff> passes;
    for (kernels::Stage1Output out : outputs)
        for (kernels::Stage2Input in : inputs)
            if (const kernels::StageHandoff h = kernels::stage_handoff(out, in); kernels::handoff_pass_name(h))
                passes.insert(h);
    return {passes.begin(), passes.end()};
}

select::HandoffCost handoff_cost(std::map<std::string, std::optional<double>> pass_us) {
    return [pass_us = std::move(pass_us)](int output, int input) -> std::optional<double> {
        const kernels::StageHandoff h = kernels::stage_handoff(static_cast<kernels::Stage1Output>(output),
                                                               static_cast<kernels::Stage2Input>(input));
        if (h == kernels::StageHandoff::impossible) return std::nullopt;
        const std::optional<std::string_view> pass = kernels::handoff_pass_name(h);
        if (!pass) return 0.0;
        const auto it = pass_us.find(std::string(*pass));
        return it == pass_us.end() ? std::nullopt : it->second;
    };
}

}  // namespace moetune::sweep
