#pragma once
// What to compile: one kernel source with the name expressions to instantiate, for one arch.
#include <string>
#include <string_view>
#include <vector>

namespace moetune::rtc {

struct CompileRequest {
    std::string source_name;  // for messages and #include resolution, e.g. "moe_sort.hip"
    std::string source;       // the program text
    // Kernels to instantiate and report lowered names for, e.g. "moe_sort_scatter<256, 4>" or a
    // plain kernel name. May be empty (syntax check of a template file).
    std::vector<std::string> name_expressions;
    std::vector<std::string> options;  // -D..., -maxrregcount=..., on top of the target's defaults
    std::string arch;                  // gpu::DeviceInfo::arch: "sm_90a", "gfx90a", ...
    // No FMA contraction: for kernels that must match CPU code bit for bit.
    bool exact_float = false;
};

// A request for an embedded kernel template (see kernel_sources.h).
CompileRequest template_request(std::string_view template_path, std::vector<std::string> name_expressions,
                                std::string arch, std::vector<std::string> options = {});

}  // namespace moetune::rtc
