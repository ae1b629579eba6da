// `moetune devices` on whatever host runs the test: with a usable GPU it lists every device, without
// one it exits 3 with "no GPU: <reason>" -- the same reason gpu::unavailable_reason() gives.
#include <string>

#include "cli/exit_codes.h"
#include "gpu/device.h"
#include "support/catch.hpp"
#include "support/test_env.h"

using moetune::test::run_moetune;

TEST_CASE("moetune devices lists the GPUs or says why there are none", "[cli][gpu]") {
    const std::string why = moetune::gpu::unavailable_reason();
    const auto text = run_moetune("devices");
    const auto json = run_moetune("devices --format json");
    if (!why.empty()) {
        INFO(text.err);
        CHECK(text.exit_code == moetune::cli::kExitNoGpu);
        CHECK(text.err.find("no GPU: " + why) != std::string::npos);
        CHECK(text.out.empty());
        CHECK(json.exit_code == moetune::cli::kExitNoGpu);
        return;
    }
    REQUIRE(text.exit_code == 0);
    REQUIRE(json.exit_code == 0);
    for (int d = 0; d < moetune::gpu::device_count(); ++d) {
        const auto info = moetune::gpu::device_info(d);
        INFO(text.out);
        CHECK(text.out.find(std::to_string(d) + ": " + info.name + "  arch=" + info.arch + " gfx=" + info.gfx +
                            " cu_num=" + std::to_string(info.cu_num)) != std::string::npos);
        CHECK(json.out.find("\"cu_num\": " + std::to_string(info.cu_num)) != std::string::npos);
    }
}

TEST_CASE("moetune devices rejects an unknown format", "[cli][gpu]") {
    CHECK(run_moetune("devices --format yaml").exit_code == moetune::cli::kExitUsage);
}
