// The embedded kernel templates and the #include resolution that feeds NVRTC/hipRTC their headers
// and the cache key its inputs.
#include <algorithm>
#include <string>

#include "rtc/include_scan.h"
#include "rtc/kernel_sources.h"
#include "support/catch.hpp"
#include "support/test_env.h"
#include "support/thrown_message.h"

using namespace moetune::rtc;
using moetune::test::contains;
using moetune::test::thrown_message;

TEST_CASE("every kernel template is embedded with its exact text", "[rtc][sources]") {
    const auto paths = kernel_source_paths();
    for (const char* p : {"moe_sort.hip", "synthetic_weights.hip", "mxfp8_quant.hip", "reference_moe.hip",
                          "common/mx_types.h", "common/host_device.h", "common/synthetic.h"}) {
        INFO(p);
        CHECK(std::find(paths.begin(), paths.end(), p) != paths.end());
        const auto on_disk = moetune::test::read_text(moetune::test::fixtures_dir().parent_path().parent_path() /
                                                      "kernel_templates" / p);
        CHECK(kernel_source(p) == on_disk);
    }
    CHECK(std::is_sorted(paths.begin(), paths.end()));
    CHECK_FALSE(has_kernel_source("no_such_kernel.hip"));
    CHECK(contains(thrown_message([] { kernel_source("no_such_kernel.hip"); }), "'no_such_kernel.hip'"));
}

TEST_CASE("quoted includes are followed through the templates, under the name they are spelled with",
          "[rtc][sources]") {
    const auto headers = resolve_includes("synthetic_weights.hip", std::string(kernel_source("synthetic_weights.hip")));
    std::vector<std::string> names;
    for (const Header& h : headers) names.push_back(h.include_name);
    // synthetic.h includes "mx_types.h", which includes "host_device.h", both from inside common/.
    CHECK(names == std::vector<std::string>{"common/synthetic.h", "host_device.h", "mx_types.h"});
    CHECK(headers[1].path == "common/host_device.h");
    CHECK(headers[2].path == "common/mx_types.h");
    CHECK(headers[2].text == guarded_header_text("common/mx_types.h", kernel_source("common/mx_types.h")));
}

TEST_CASE("header texts are guarded by their path, keeping their own line numbers", "[rtc][sources]") {
    const std::string text = guarded_header_text("common/a-b.h", "int x;");
    CHECK(text ==
          "#ifndef MOETUNE_RTC_ONCE_common_a_b_h\n#define MOETUNE_RTC_ONCE_common_a_b_h\n"
          "#line 1 \"common/a-b.h\"\nint x;\n#endif\n");
}

TEST_CASE("an include that is not an embedded template is reported with the including file", "[rtc][sources]") {
    const std::string message =
        thrown_message([] { resolve_includes("mine.hip", "#include <cuda_fp8.h>\n  #  include \"common/nope.h\"\n"); });
    CHECK(contains(message, "mine.hip: #include \"common/nope.h\""));
    // Angle includes are the compiler's business.
    CHECK(resolve_includes("mine.hip", "#include <cuda_fp8.h>\n").empty());
}
