#pragma once
// The compile request of one candidate kernel: its stage's template (moe_stage1.hip or
// moe_stage2.hip) with the config's -D definitions (kernels::kernel_source), plus
// -DMOETUNE_TEST_BREAK=n for the deliberately broken test variants. A sweep compiles this request in
// the parent (on all cores) before handing the task to a worker; the worker builds the same request
// from the task, so it finds the code object in the shared disk cache.
#include <string>

#include "kernels/kernel_config.h"
#include "rtc/compile_request.h"

namespace moetune::measure {

// One name expression: the kernel name, which the template uses as its extern "C" entry point.
// test_break: 0, or 1 wrong / 2 fault / 3 hang (kernel_templates/common/test_break.h).
// Throws std::invalid_argument for a config kernel_source rejects, or test_break out of 0..3.
rtc::CompileRequest candidate_compile_request(const kernels::KernelConfig& config, const std::string& arch,
                                              int test_break = 0);

}  // namespace moetune::measure
