#include "instantiate/kernel_request.h"

#include <stdexcept>

#include "instantiate/compile_target.h"
#include "kernels/compile_definitions.h"

namespace moetune::instantiate {

rtc::CompileRequest kernel_compile_request(const kernels::KernelConfig& config, const std::string& arch,
                                           int test_break) {
    if (test_break < 0 || test_break > 3)
        throw std::invalid_argument("test_break must be 0..3, got " + std::to_string(test_break));
    const kernels::KernelSource source = kernels::kernel_source(config);
    std::vector<std::string> options;
    for (const kernels::Definition& d : source.definitions) options.push_back("-D" + d.name + "=" + d.value);
    if (test_break != 0) options.push_back("-DMOETUNE_TEST_BREAK=" + std::to_string(test_break));
    // ptxas writes registers and spill bytes into the program log. AMD code objects carry both in
    // their metadata without asking.
    if (target_vendor(arch) == TargetVendor::nvidia) options.push_back("--ptxas-options=-v");
    return rtc::template_request(source.template_path, {source.entry_point}, arch, std::move(options));
}

}  // namespace moetune::instantiate
