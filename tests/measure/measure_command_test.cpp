// `moetune measure` and the hidden `moetune worker` end to end, on whatever host runs the test:
// without a GPU both exit 3 with the reason; with one, a candidate is measured through a worker and
// its result written as JSON.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/exit_codes.h"
#include "gpu/device.h"
#include "kernels/candidates.h"
#include "kernels/device_limits.h"
#include "kernels/kernel_name.h"
#include "support/catch.hpp"
#include "support/test_env.h"

using namespace moetune;
using moetune::test::run_moetune;
using moetune::test::shell_quote;
using moetune::test::contains;

namespace {

std::string reference_shapes() { return test::reference_shapes_file().string(); }


// The first stage-2 candidate of DSv4.1-Flash at one token on this device.
std::string first_stage2_candidate() {
    const data::MoeShape dsv41{1, 5120, 2304, 96, 5};
    const auto limits = kernels::device_limits_for_arch(gpu::device_info(0).arch);
    REQUIRE(limits);
    const auto list = kernels::enumerate_candidates(kernels::Stage::down, dsv41, *limits);
    REQUIRE_FALSE(list.kept.empty());
    return kernels::kernel_name(list.kept.front());
}

}  // namespace

TEST_CASE("measure and worker say why there is no GPU, before anything else", "[cli][measure]") {
    const std::string why = gpu::unavailable_reason();
    if (!why.empty()) {
        // Even with an input file that does not exist: the GPU is checked first.
        const auto measure = run_moetune("measure --shapes /nonexistent.csv --tokens 1");
        INFO(measure.err);
        CHECK(measure.exit_code == cli::kExitNoGpu);
        CHECK(contains(measure.err, "no GPU: " + why));
        CHECK(measure.out.empty());
        const auto worker = run_moetune("worker --gpu 0 </dev/null");
        INFO(worker.err);
        CHECK(worker.exit_code == cli::kExitNoGpu);
        CHECK(contains(worker.err, "no GPU: " + why));
        CHECK(worker.out.empty());  // the protocol stream carries nothing but results
        return;
    }
    test::TempDir tmp("measure-cli");
    const std::string json = (tmp / "out.json").string();
    // One stage-2 candidate at one token: the smallest measurement there is.
    const std::string name = first_stage2_candidate();
    const auto r = run_moetune("measure --shapes " + shell_quote(reference_shapes()) +
                               " --tokens 1 --stage 2 --kernels " + shell_quote("^" + name + "$") + " --json " +
                               shell_quote(json) + " --cache-dir " + shell_quote(MOETUNE_TEST_KERNEL_CACHE));
    INFO(r.out);
    INFO(r.err);
    REQUIRE(r.exit_code == cli::kExitOk);
    CHECK(contains(r.out, "1 of 1 candidates passed"));
    const auto report = nlohmann::json::parse(test::read_text(json));
    REQUIRE(report.at("measurements").size() == 1);
    const auto& result = report["measurements"][0]["result"];
    CHECK(result.at("kernel_name").get<std::string>() == name);
    CHECK(result.at("ok").get<bool>());
    CHECK(result.at("us").get<double>() > 0);
    CHECK(result.at("stage").get<int>() == 2);
}

TEST_CASE("measure --help marks --test-break as test-only; the worker command is hidden", "[cli][measure]") {
    const auto help = run_moetune("measure --help");
    CHECK(help.exit_code == 0);
    CHECK(contains(help.out, "--test-break"));
    CHECK(contains(help.out, "(test-only)"));
    const auto top = run_moetune("--help");
    CHECK(contains(top.out, "measure"));
    CHECK_FALSE(contains(top.out, "worker"));
}

TEST_CASE("measure rejects bad flags as usage errors", "[cli][measure]") {
    CHECK(run_moetune("measure --tokens 1").exit_code == cli::kExitUsage);  // no --shapes
    CHECK(run_moetune("measure --shapes x.csv --tokens 1 --test-break sometimes").exit_code == cli::kExitUsage);
    CHECK(run_moetune("measure --shapes x.csv --tokens 1 --isolate --in-process").exit_code == cli::kExitUsage);
    CHECK(run_moetune("measure --shapes x.csv --tokens 0").exit_code == cli::kExitUsage);
    for (const char* routings : {"0", "65", "two"}) {
        INFO(routings);
        CHECK(run_moetune(std::string("measure --shapes x.csv --tokens 1 --routings ") + routings).exit_code ==
              cli::kExitUsage);
    }
}
