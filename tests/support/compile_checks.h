#pragma once
// For the tests that compile a set of kernel requests without a GPU (NVRTC or hipRTC for the test arch):
// each request compiles and names a lowered kernel for each of its name expressions.
#include <vector>

#include "rtc/compile_request.h"
#include "rtc/compiler.h"
#include "support/catch.hpp"

namespace moetune::test {

inline void check_each_compiles(const std::vector<rtc::CompileRequest>& requests) {
    for (const rtc::CompileRequest& r : requests) {
        INFO(r.source_name);
        const rtc::CompiledCode code = rtc::compile(r);
        CHECK_FALSE(code.code.empty());
        CHECK(code.lowered_names.size() == r.name_expressions.size());
    }
}

}  // namespace moetune::test
