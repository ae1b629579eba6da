// Real sweeps on this host's GPU(s) (skipped without one): the reference shapes at a few buckets
// fill a table that passes `moetune check`; a sweep killed with SIGKILL midway and rerun loses and
// duplicates no row; `--gpus all` on a multi-GPU host gives a table of the same form; an output
// that cannot be written exits 4 before any GPU work. Kernels compile into the default cache
// ($XDG_CACHE_HOME/moetune), so only the first run pays for compiling.
#include <signal.h>

#include <chrono>
#include <fstream>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli/exit_codes.h"
#include "gpu/device.h"
#include "support/catch.hpp"
#include "support/test_env.h"
#include "sweep_fakes.h"
#include "table/row_key.h"
#include "table/schema.h"
#include "table/table_reader.h"

using namespace moetune;
using moetune::test::ProcessResult;
using moetune::test::read_text;
using moetune::test::run_moetune;
using moetune::test::shell_quote;
using moetune::test::TempDir;

namespace {

std::string sweep_args(const std::string& tokens, const std::filesystem::path& out) {
    return "sweep --shapes " + shell_quote(test::reference_shapes_file().string()) + " --tokens " + tokens + " -o " +
           shell_quote(out.string());
}

std::size_t row_count(const std::filesystem::path& p) {
    if (!std::filesystem::exists(p)) return 0;
    return table::read_table(p).rows.size();
}

// Every row's dedup key once; the rows' tokens in file order.
std::vector<std::string> tokens_with_unique_keys(const std::filesystem::path& p) {
    const table::Table t = table::read_table(p);
    std::set<std::string> keys;
    std::vector<std::string> tokens;
    for (const auto& r : t.rows) {
        INFO("duplicate key at " << p.string() << ":" << r.line);
        CHECK(keys.insert(table::dedup_key(t, r)).second);
        tokens.emplace_back(t.cell(r, table::col::token));
    }
    return tokens;
}

void check_passes(const std::filesystem::path& p) {
    const ProcessResult c = run_moetune("check " + shell_quote(p.string()));
    INFO("moetune check " << p.string() << ":\n" << c.out << c.err);
    CHECK(c.exit_code == cli::kExitOk);
}

}  // namespace

TEST_CASE("sweep on the GPU fills its buckets and the table passes check", "[gpu]") {
    TempDir dir("sweep-gpu");
    const auto out = dir / "out.csv";
    const ProcessResult r = run_moetune(sweep_args("1,16", out) + " --report " + shell_quote((dir / "run.json").string()) +
                                        " --profile-out " + shell_quote((dir / "all.csv").string()));
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == cli::kExitOk);
    CHECK(tokens_with_unique_keys(out) == std::vector<std::string>{"1", "16"});
    const table::Table t = table::read_table(out);
    const gpu::DeviceInfo d = gpu::device_info(0);
    for (const auto& row : t.rows) {
        CHECK(t.cell(row, table::col::gfx) == d.gfx);
        CHECK(t.cell(row, table::col::cu_num) == std::to_string(d.cu_num));
        CHECK(t.cell(row, table::col::kernel_name1).rfind("moetune_moe1_", 0) == 0);
        CHECK(t.cell(row, table::col::kernel_name2).rfind("moetune_moe2_", 0) == 0);
    }
    check_passes(out);
    const auto report = nlohmann::json::parse(read_text(dir / "run.json"));
    CHECK(report["finished"] == true);
    for (const auto& b : report["buckets"]) {
        INFO(b.dump());
        CHECK(b["status"] == "tuned");
        // Every candidate of these buckets passes (measure_all_candidates_test): a failure here is the
        // harness's, e.g. a worker killed between screening and full timing.
        CHECK(b["candidates"]["failed"].get<int>() == 0);
        // The pass between the stages that _fp8 stage 1s and stage 2s on rebased rows would run, timed.
        CHECK_FALSE(b["handoff_passes"].empty());
        for (const auto& [pass, us] : b["handoff_passes"].items()) CHECK((us.is_number() && us.get<double>() > 0));
        CHECK(b["winner"]["us1"].get<double>() >= b["winner"]["handoff_us"].get<double>());
    }
    CHECK(r.err.find("worker exited") == std::string::npos);
    CHECK(r.out.find("tuned") != std::string::npos);
}

TEST_CASE("a sweep killed with SIGKILL midway and rerun loses and duplicates no row", "[gpu]") {
    TempDir dir("sweep-kill");
    const auto out = dir / "out.csv";
    const auto pid_file = dir / "pid";
    const std::string args = sweep_args("1,2,4,8", out);
    // Started in the background; its pid is the moetune parent (workers follow it: EOF on stdin).
    const std::string start = shell_quote(test::moetune_binary().string()) + " " + args + " >" +
                              shell_quote((dir / "log").string()) + " 2>&1 & echo $! >" + shell_quote(pid_file.string());
    REQUIRE(std::system(start.c_str()) == 0);
    const pid_t pid = std::stoi(read_text(pid_file));

    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(20);
    while (row_count(out) == 0 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    REQUIRE(::kill(pid, SIGKILL) == 0);
    while (::kill(pid, 0) == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    INFO(read_text(dir / "log"));

    const std::vector<std::string> before = tokens_with_unique_keys(out);  // a valid table, not a torn file
    REQUIRE_FALSE(before.empty());
    INFO("rows written before the kill: " << before.size());
    check_passes(out);
    const std::string text_before = read_text(out);

    const ProcessResult rerun = run_moetune(args);
    INFO(rerun.out << rerun.err);
    REQUIRE(rerun.exit_code == cli::kExitOk);
    CHECK(tokens_with_unique_keys(out) == std::vector<std::string>{"1", "2", "4", "8"});
    CHECK(read_text(out).rfind(text_before, 0) == 0);  // the finished rows were kept as they were
    check_passes(out);
}

TEST_CASE("sweep --gpus all on a multi-GPU host gives a table that passes check", "[gpu]") {
    if (gpu::device_count() < 2) {
        SUCCEED("one GPU: nothing to spread");
        return;
    }
    TempDir dir("sweep-gpus");
    const auto out = dir / "out.csv";
    const ProcessResult r = run_moetune(sweep_args("1,16", out) + " --gpus all");
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == cli::kExitOk);
    CHECK(tokens_with_unique_keys(out) == std::vector<std::string>{"1", "16"});
    check_passes(out);
}

TEST_CASE("sweep refuses an output it cannot write before any GPU work, and writes nothing", "[gpu]") {
    TempDir dir("sweep-gpu");
    const auto out = dir / "missing" / "out.csv";
    const ProcessResult r = run_moetune(sweep_args("1", out) + " --profile-out " + shell_quote((dir / "all.csv").string()));
    INFO(r.err);
    CHECK(r.exit_code == cli::kExitCannotWrite);
    CHECK(r.err.find("does not exist") != std::string::npos);
    CHECK(std::filesystem::is_empty(dir.path()));
}
