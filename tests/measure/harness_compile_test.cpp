// The harness's own kernels (weight_layout.hip, the reduce) and the SM clock probe compile for the test arch
// without a GPU, and a worker's support list holds them and the data kernels, each once.
#include <set>
#include <string>

#include "data_gpu/data_kernels.h"
#include "measure/harness_kernels.h"
#include "measure/sm_clock_probe.h"
#include "rtc/compiler.h"
#include "support/catch.hpp"
#include "support/compile_checks.h"

using namespace moetune;

namespace {
const std::string kArch = MOETUNE_TEST_ARCH;
}

TEST_CASE("the harness kernels compile", "[measure][rtc]") {
    test::check_each_compiles(measure::HarnessKernels::requests(kArch));
}

TEST_CASE("the SM clock probe compiles", "[measure][rtc]") {
    test::check_each_compiles({measure::SmClockProbe::request(kArch)});
}

TEST_CASE("a worker's support kernels are the data kernels, the harness kernels and the clock probe",
          "[measure][rtc]") {
    std::set<std::string> keys;
    for (const rtc::CompileRequest& r : measure::worker_support_requests(kArch)) keys.insert(rtc::cache_key(r));
    std::set<std::string> expected;
    for (const rtc::CompileRequest& r : data::DataKernels::requests(kArch)) expected.insert(rtc::cache_key(r));
    for (const rtc::CompileRequest& r : measure::HarnessKernels::requests(kArch)) expected.insert(rtc::cache_key(r));
    expected.insert(rtc::cache_key(measure::SmClockProbe::request(kArch)));
    CHECK(keys == expected);  // the very requests the worker compiles, so the parent's compile is its cache hit
    CHECK(keys.size() ==
          data::DataKernels::requests(kArch).size() + measure::HarnessKernels::requests(kArch).size() + 1);
}
