#include "support/catch.hpp"

#include "table/number_format.h"

using namespace moetune::table;

// Expected strings are what Python prints for str(round(v, n)) and f"{e:.1%}".
TEST_CASE("number format: str(round(v, n)) for us and tflops/bw") {
    CHECK(format_rounded(14.296, 4) == "14.296");
    CHECK(format_rounded(20.9291, 4) == "20.9291");
    CHECK(format_rounded(0.0, 4) == "0.0");
    CHECK(format_rounded(131.81310000000002, 4) == "131.8131");
    CHECK(format_rounded(0.00005, 4) == "0.0001");
    CHECK(format_rounded(1e-05, 4) == "0.0");
    CHECK(format_rounded(-1e-05, 4) == "-0.0");
    CHECK(format_rounded(2.675, 2) == "2.67");  // 2.675 is 2.67499999... in binary
    CHECK(format_rounded(0.125, 2) == "0.12");  // an exact tie goes to even
    CHECK(format_rounded(0.375, 2) == "0.38");
    CHECK(format_rounded(202009.6449, 2) == "202009.64");
    CHECK(format_rounded(10072.5, 2) == "10072.5");
    CHECK(format_rounded(1234567.0, 2) == "1234567.0");
}

TEST_CASE("number format: err as AITER's f\"{err:.1%}\"") {
    CHECK(format_err_percent(0.053) == "5.3%");
    CHECK(format_err_percent(0.0) == "0.0%");
    CHECK(format_err_percent(0.0005) == "0.1%");
    CHECK(format_err_percent(0.00049) == "0.0%");
    CHECK(format_err_percent(0.0125) == "1.2%");
    CHECK(format_err_percent(1.0) == "100.0%");
}
