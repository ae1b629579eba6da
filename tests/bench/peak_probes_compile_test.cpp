// The probes of `moetune bench --hbm-tbps 0 --peak-tflops 0` (kernel_templates/peak_probes.hip) compile for
// the test arch without a GPU, and the FP8 probe is offered only where it has warpgroup products.
#include <vector>

#include "bench/peak_probes.h"
#include "support/catch.hpp"
#include "support/compile_checks.h"

using namespace moetune;

TEST_CASE("the peak probes compile", "[bench][rtc]") {
    const std::vector<rtc::CompileRequest> requests = bench::PeakProbes::requests(MOETUNE_TEST_ARCH);
    REQUIRE(requests.size() == 1);
    CHECK(requests[0].name_expressions.size() == 3);  // the copy, the read stream and the products
    test::check_each_compiles(requests);
}

TEST_CASE("the FP8 peak is measured on sm_90a only", "[bench]") {
    CHECK(bench::PeakProbes::measures_fp8("sm_90a"));
    for (const char* arch : {"sm_90", "sm_80", "gfx950", "gfx942", "gfx90a"}) {
        INFO(arch);
        CHECK_FALSE(bench::PeakProbes::measures_fp8(arch));
    }
}
