#pragma once
// The config of a kernel name a test spells out and knows to be valid; a name that does not parse
// fails the test with the parser's reason.
#include <string>

#include "kernels/kernel_name.h"
#include "support/catch.hpp"

namespace moetune::test {

inline kernels::KernelConfig parse(const std::string& name) {
    std::string why;
    const auto c = kernels::parse_kernel_name(name, &why);
    INFO(name << ": " << why);
    REQUIRE(c);
    return *c;
}

}  // namespace moetune::test
