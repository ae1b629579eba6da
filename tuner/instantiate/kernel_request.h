#pragma once
// The compile request of one candidate kernel: its stage's template with the config's -D
// definitions (kernels::kernel_source), for one arch, plus what makes the compiler report the
// kernel's registers and spills (resource_usage.h). Every compile of a candidate -- `moetune
// compile`, a sweep's compile-ahead, a worker -- must use this one request, so they share cache
// entries.
#include <string>

#include "kernels/kernel_config.h"
#include "rtc/compile_request.h"

namespace moetune::instantiate {

// test_break: 0, or 1 wrong / 2 fault / 3 hang, the deliberately broken variants of
// kernel_templates/common/test_break.h (only they carry -DMOETUNE_TEST_BREAK, so the real kernels'
// cache keys do not depend on it). Throws std::invalid_argument for a config
// kernels::compile_definitions rejects, or test_break out of 0..3.
rtc::CompileRequest kernel_compile_request(const kernels::KernelConfig& config, const std::string& arch,
                                           int test_break = 0);

}  // namespace moetune::instantiate
