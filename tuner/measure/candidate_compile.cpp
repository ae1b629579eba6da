#include "measure/candidate_compile.h"

#include <stdexcept>

#include "kernels/compile_definitions.h"

namespace moetune::measure {

rtc::CompileRequest candidate_compile_request(const kernels::KernelConfig& config, const std::string& arch,
                                              int test_break) {
    if (test_break < 0 || test_break > 3)
        throw std::invalid_argument("test_break must be 0..3, got " + std::to_string(test_break));
    const kernels::KernelSource source = kernels::kernel_source(config);
    std::vector<std::string> options;
    for (const kernels::Definition& d : source.definitions) options.push_back("-D" + d.name + "=" + d.value);
    // Only broken variants carry the option, so the real kernels' cache keys do not depend on it.
    if (test_break != 0) options.push_back("-DMOETUNE_TEST_BREAK=" + std::to_string(test_break));
    return rtc::template_request(source.template_path, {source.entry_point}, arch, std::move(options));
}

}  // namespace moetune::measure
