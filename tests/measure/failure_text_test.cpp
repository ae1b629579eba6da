// Failure texts are one line, start with their kind, and are cut to a readable length.
#include <string>

#include "measure/failure.h"
#include "support/catch.hpp"

using namespace moetune::measure;

TEST_CASE("a failure text is its kind, a colon and the detail on one line", "[measure][failure]") {
    CHECK(failure_text("wrong", "cosine 0.31 > 0.1") == "wrong: cosine 0.31 > 0.1");
    const std::string log = "moe_stage1.hip(12): error: expected a ';'\r\n  int x\n\n1 error detected\n";
    CHECK(failure_text("compile", log) ==
          "compile: moe_stage1.hip(12): error: expected a ';' |   int x | 1 error detected");
}

TEST_CASE("long details are cut, and marked as cut", "[measure][failure]") {
    const std::string text = failure_text("compile", std::string(1000, 'x'), 100);
    CHECK(text.size() == 100);
    CHECK(text.starts_with("compile: xxx"));
    CHECK(text.ends_with("..."));
}

TEST_CASE("the kind of a failure is its leading word", "[measure][failure]") {
    CHECK(failure_kind("fault: worker exited with signal 6 (Aborted): boom") == "fault");
    CHECK(failure_kind("timeout after 60 s") == "timeout");
    CHECK(failure_kind("nan: 3 of 10 output values") == "nan");
    CHECK(failure_kind("").empty());
}
