#pragma once
// The what() of the exception `f` throws, or a marker when it throws none: lets tests check error
// messages the same way under Catch2 v2 and v3 (whose string matchers differ).
#include <exception>
#include <string>

#include "support/test_env.h"  // contains()

namespace moetune::test {

template <class F>
std::string thrown_message(F&& f) {
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "(no exception)";
}

}  // namespace moetune::test
