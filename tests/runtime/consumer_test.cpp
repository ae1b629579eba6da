// libmoetune as a user gets it: `cmake --install` of this build tree into a fresh prefix, then a
// separate CMake project (tests/runtime/consumer) that finds it with find_package(moetune), builds
// against the installed headers and library only, and runs.
#include <string>

#include "support/catch.hpp"
#include "support/test_env.h"

using moetune::test::contains;
using moetune::test::run_process;
using moetune::test::shell_quote;

namespace {

// Runs a command line, failing the test with its output when it does not exit 0.
std::string succeed(const std::string& command_line) {
    const moetune::test::ProcessResult r = run_process(command_line);
    INFO(command_line << "\n" << r.out << r.err);
    REQUIRE(r.exit_code == 0);
    return r.out;
}

}  // namespace

TEST_CASE("an installed libmoetune is found, built against and run by another CMake project") {
    const moetune::test::TempDir dir("runtime_consumer");
    const std::string cmake = shell_quote(MOETUNE_CMAKE_COMMAND);
    const std::string prefix = shell_quote((dir / "prefix").string());
    const std::string build = shell_quote((dir / "build").string());
    succeed(cmake + " --install " + shell_quote(MOETUNE_BUILD_TREE) + " --component library --prefix " + prefix);
    succeed(cmake + " -S " + shell_quote(MOETUNE_CONSUMER_SOURCE_DIR) + " -B " + build + " -G " +
            shell_quote(MOETUNE_CMAKE_GENERATOR) + " -DCMAKE_CXX_COMPILER=" + shell_quote(MOETUNE_CXX_COMPILER) +
            " -DCMAKE_PREFIX_PATH=" + prefix);
    succeed(cmake + " --build " + build);

    const std::string table = (moetune::test::fixtures_dir() / "runtime" / "sm90_a.csv").string();
    const std::string consumer = (dir / "build" / "moetune_consumer").string();
    const std::string out = succeed(shell_quote(consumer) + " " + shell_quote(table));
    CHECK(contains(out, "rows: 7\n"));
    CHECK(contains(out, "lookup: moetune_moe1_afp8_wfp4_bf16_t16x128x128_w2_nt_gui_fp8 from " + table + ":3\n"));
    // With a GPU it plans; without one the constructor says why (and either way its symbols linked).
    CHECK((contains(out, "FusedMoe on ") || contains(out, "FusedMoe threw: FusedMoe: no usable GPU: ")));
    CHECK(contains(out, "TableError: no-such-table.csv"));
}
