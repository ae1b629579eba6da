#include "measure/candidate_compile.h"

#include <stdexcept>

#include "kernels/compile_definitions.h"
#include "kernels/kernel_name.h"

namespace moetune::measure {

const char* stage_template(kernels::Stage stage) {
    return stage == kernels::Stage::gate_up ? "moe_stage1.hip" : "moe_stage2.hip";
}

rtc::CompileRequest candidate_compile_request(const kernels::KernelConfig& config, const std::string& arch,
                                              int test_break) {
    if (test_break < 0 || test_break > 3)
        throw std::invalid_argument("test_break must be 0..3, got " + std::to_string(test_break));
    std::vector<std::string> options;
    for (const kernels::Definition& d : kernels::compile_definitions(config))
        options.push_back("-D" + d.name + "=" + d.value);
    // Only broken variants carry the option, so the real kernels' cache keys do not depend on it.
    if (test_break != 0) options.push_back("-DMOETUNE_TEST_BREAK=" + std::to_string(test_break));
    return rtc::template_request(stage_template(config.stage), {kernels::kernel_name(config)}, arch,
                                 std::move(options));
}

}  // namespace moetune::measure
