// The sweep driver with fake GPUs: rows written per bucket and passing check, resume and retune,
// a run killed midway, failures, compile-ahead order, the profile and the report, and that the
// table does not depend on how many workers measured it.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <thread>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "kernels/kernel_name.h"
#include "kernels/stage_handoff.h"
#include "support/catch.hpp"
#include "support/test_env.h"
#include "sweep/handoff_passes.h"
#include "sweep/summary.h"
#include "sweep/sweep_driver.h"
#include "sweep/worker_pool.h"
#include "sweep_fakes.h"
#include "table/check.h"
#include "table/schema.h"
#include "table/table_reader.h"

using namespace moetune;
using namespace moetune::sweep;
using moetune::test::FakeCompileAhead;
using moetune::test::FakeRunner;
using moetune::test::read_text;
using moetune::test::TempDir;

namespace {

// The kernels that win every bucket: the first stage-1 and stage-2 candidates of sort block 16.
struct Winners {
    std::string stage1, stage2;
};

using ConfigFilter = std::function<bool(const kernels::KernelConfig&)>;
bool any_config(const kernels::KernelConfig&) { return true; }

// The first stage-1 and stage-2 candidates of sort block 16 that the filters accept.
Winners designated(const PlanEntry& e, const ConfigFilter& stage1 = any_config, const ConfigFilter& stage2 = any_config) {
    Winners w;
    for (const auto& c : e.stage1.kept)
        if (w.stage1.empty() && kernels::sort_block_m(c) == 16 && stage1(c)) w.stage1 = kernels::kernel_name(c);
    for (const auto& c : e.stage2.kept)
        if (w.stage2.empty() && kernels::sort_block_m(c) == 16 && stage2(c)) w.stage2 = kernels::kernel_name(c);
    return w;
}

// The designated pair runs in 10 + 20 us (times `factor`), everything else in 100 + block_m us, a
// pass between the stages in `pass_us` (< 0: it fails).
auto canned(const Winners& w, double factor = 1.0, double pass_us = 5) {
    return [w, factor, pass_us](const measure::MeasureTask& t) {
        if (t.kernel_name == w.stage1) return test::passing(t, 10 * factor);
        if (t.kernel_name == w.stage2) return test::passing(t, 20 * factor);
        if (kernels::parse_handoff_pass(t.kernel_name))
            return pass_us < 0 ? test::failing(t, "launch: refused") : test::passing(t, pass_us);
        const kernels::KernelConfig c = *kernels::parse_kernel_name(t.kernel_name);
        return test::passing(t, 100 + kernels::sort_block_m(c));
    };
}

// The handoff passes a bucket's measuring times beside its candidates (those but `except`).
std::size_t pass_count(const PlanEntry& e, const std::string& except = "") {
    std::vector<kernels::KernelConfig> configs;
    for (const auto* kept : {&e.stage1.kept, &e.stage2.kept})
        for (const kernels::KernelConfig& c : *kept)
            if (kernels::kernel_name(c) != except) configs.push_back(c);
    return handoff_passes(configs).size();
}

struct Sweep {
    TempDir dir{"sweep"};
    std::vector<PlanEntry> plan = test::reference_plan({1, 2, 4});
    PlanTarget target = test::test_target();
    SweepSettings settings;
    Winners winners = designated(plan.front());

    Sweep() {
        spdlog::set_level(spdlog::level::off);  // the per-bucket log lines are not under test
        settings.output = dir / "out.csv";
        settings.profile_out = dir / "profile.csv";
        settings.report = dir / "run.json";
        settings.task.err_ratio = 0.1;
    }
    std::vector<BucketReport> run(TaskRunner& runner) {
        FakeCompileAhead compiler;
        return run_sweep(plan, target, settings, runner, compiler);
    }
    table::Table out() const { return table::read_table(settings.output); }
};

std::vector<std::string> column(const table::Table& t, std::string_view c) {
    std::vector<std::string> values;
    for (const auto& r : t.rows) values.emplace_back(t.cell(r, c));
    return values;
}

table::CheckResult check(const std::filesystem::path& p) { return table::check_files({p.string()}); }

std::string findings_text(const table::CheckResult& r) {
    std::string text;
    for (const auto& f : r.findings) text += f.file + ":" + std::to_string(f.line) + ": " + f.message + "\n";
    return text;
}

}  // namespace

TEST_CASE("sweep: one row per bucket, AITER's columns, the best pair, and the table passes check") {
    Sweep s;
    REQUIRE(s.winners.stage1.find("_t16x") != std::string::npos);
    FakeRunner runner(canned(s.winners));
    const std::vector<BucketReport> reports = s.run(runner);

    const table::Table t = s.out();
    CHECK(t.columns == std::vector<std::string>(table::kTunedColumns.begin(), table::kTunedColumns.end()));
    CHECK(column(t, table::col::token) == std::vector<std::string>{"1", "2", "4"});
    for (const auto& r : t.rows) {
        CHECK(t.cell(r, table::col::gfx) == "gfx950");
        CHECK(t.cell(r, table::col::cu_num) == "256");
        CHECK(t.cell(r, table::col::block_m) == "16");
        CHECK(t.cell(r, table::col::ksplit) == "0");
        CHECK(t.cell(r, table::col::kernel_name1) == s.winners.stage1);
        CHECK(t.cell(r, table::col::kernel_name2) == s.winners.stage2);
        CHECK(t.cell(r, table::col::us1) == "10.0");
        CHECK(t.cell(r, table::col::us2) == "20.0");
        CHECK(t.cell(r, table::col::us) == "30.0");
        CHECK(t.cell(r, table::col::err1) == "0.0%");
        CHECK(t.cell(r, table::col::run_1stage) == "0");
        CHECK(t.cell(r, table::col::xbf16) == "0");
        CHECK(t.cell(r, table::col::flat) == "0");
    }
    const table::CheckResult c = check(s.settings.output);
    INFO(findings_text(c));
    CHECK(c.errors == 0);
    CHECK(c.warnings == 0);

    REQUIRE(reports.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
        const BucketReport& r = reports[i];
        CHECK(r.status == BucketStatus::tuned);
        CHECK(r.tried == s.plan[i].candidate_count());
        CHECK(r.pruned == s.plan[i].pruned_count());
        CHECK(r.failed == 0);
        REQUIRE(r.runner_up);
        CHECK(r.runner_up->block_m == 32);  // 132 + 132 us: the next sort block
    }
    // The candidates and each bucket's pass between the stages (the FP8 stage 2 kernels read rebased rows).
    REQUIRE(pass_count(s.plan[0]) == 1);
    std::size_t tasks = 0;
    for (const PlanEntry& e : s.plan) tasks += e.candidate_count() + pass_count(e);
    CHECK(runner.task_count() == tasks);
    CHECK(format_not_finished(reports).empty());
}

TEST_CASE("sweep: rows stamped with an NVIDIA device's gfx (sm_90) pass check") {
    Sweep s;
    s.target.gfx = "sm_90";
    s.target.cu_num = 132;
    FakeRunner runner(canned(s.winners));
    s.run(runner);
    CHECK(column(s.out(), table::col::gfx) == std::vector<std::string>{"sm_90", "sm_90", "sm_90"});
    const table::CheckResult c = check(s.settings.output);
    INFO(findings_text(c));
    CHECK(c.errors == 0);
}

TEST_CASE("sweep: a rerun skips rows already in the output; --retune measures them again") {
    Sweep s;
    FakeRunner first(canned(s.winners));
    s.run(first);
    const std::string after_first = read_text(s.settings.output);

    FakeRunner rerun(canned(s.winners));
    const auto reports = s.run(rerun);
    CHECK(rerun.task_count() == 0);
    for (const BucketReport& r : reports) CHECK(r.status == BucketStatus::already_tuned);
    CHECK(read_text(s.settings.output) == after_first);
    CHECK(format_not_finished(reports).empty());

    SECTION("a retune only 2% faster keeps the rows (the margin is 3%)") {
        s.settings.retune = true;
        FakeRunner retune(canned(s.winners, 0.98));
        const auto retuned = s.run(retune);
        CHECK(retune.task_count() > 0);
        for (const BucketReport& r : retuned) {
            CHECK(r.status == BucketStatus::kept_existing);
            CHECK(r.previous_us == 30.0);
            CHECK(r.reason == "the new winner (29.4000 us) is not 3% faster than the row in the output (30.0000 us)");
        }
        CHECK(read_text(s.settings.output) == after_first);
    }
    SECTION("a retune 10% faster replaces each row in place") {
        s.settings.retune = true;
        FakeRunner retune(canned(s.winners, 0.9));
        for (const BucketReport& r : s.run(retune)) CHECK(r.status == BucketStatus::tuned);
        const table::Table t = s.out();
        CHECK(column(t, table::col::token) == std::vector<std::string>{"1", "2", "4"});
        CHECK(column(t, table::col::us) == std::vector<std::string>{"27.0", "27.0", "27.0"});
    }
    SECTION("with --min-improvement-pct 0 any gain replaces") {
        s.settings.retune = true;
        s.settings.min_improvement_pct = 0;
        FakeRunner retune(canned(s.winners, 0.98));
        for (const BucketReport& r : s.run(retune)) CHECK(r.status == BucketStatus::tuned);
        CHECK(column(s.out(), table::col::us) == std::vector<std::string>{"29.4", "29.4", "29.4"});
    }
}

TEST_CASE("sweep: a run killed midway leaves exactly the finished rows; the rerun adds only the rest") {
    Sweep s;
    FakeRunner dies(canned(s.winners), /*die_on_batch=*/2);
    CHECK_THROWS_WITH(s.run(dies), "killed");

    const table::Table t = s.out();
    CHECK(column(t, table::col::token) == std::vector<std::string>{"1", "2"});
    CHECK(check(s.settings.output).errors == 0);
    const auto report = nlohmann::json::parse(read_text(*s.settings.report));
    CHECK(report["finished"] == false);
    REQUIRE(report["buckets"].size() == 3);
    CHECK(report["buckets"][0]["status"] == "tuned");
    CHECK(report["buckets"][1]["status"] == "tuned");
    CHECK(report["buckets"][2]["status"] == "pending");
    const std::string profile = read_text(*s.settings.profile_out);
    const auto profile_lines = static_cast<std::size_t>(std::count(profile.begin(), profile.end(), '\n'));
    CHECK(profile_lines == 1 + s.plan[0].candidate_count() + s.plan[1].candidate_count());

    FakeRunner rerun(canned(s.winners));
    const auto reports = s.run(rerun);
    REQUIRE(rerun.batches.size() == 1);
    CHECK(rerun.batches[0].front().shape.tokens == 4);
    CHECK(reports[0].status == BucketStatus::already_tuned);
    CHECK(reports[2].status == BucketStatus::tuned);
    CHECK(column(s.out(), table::col::token) == std::vector<std::string>{"1", "2", "4"});
    const table::CheckResult c = check(s.settings.output);
    INFO(findings_text(c));
    CHECK(c.errors == 0);
    CHECK(nlohmann::json::parse(read_text(*s.settings.report))["finished"] == true);
}

TEST_CASE("sweep: failed candidates, errors above the ratio and a bucket without a pair") {
    Sweep s;
    const Winners w = s.winners;
    FakeRunner runner([w](const measure::MeasureTask& t) {
        const bool stage2 = t.kernel_name.rfind("moetune_moe2_", 0) == 0;
        if (t.shape.tokens == 2 && stage2) return test::failing(t, "fault: worker exited with signal 11");
        if (t.shape.tokens == 4 && t.kernel_name == w.stage1) {  // the fastest stage 1 is wrong
            measure::MeasureResult r = test::passing(t, 1);
            r.err = 0.5;
            return r;
        }
        if (t.shape.tokens == 4 && t.kernel_name == w.stage2) return test::failing(t, "wrong: cosine 0.31 > 0.1");
        return canned(w)(t);
    });
    const auto reports = s.run(runner);
    CHECK(reports[0].status == BucketStatus::tuned);
    CHECK(reports[1].status == BucketStatus::failed);
    CHECK(reports[1].failed == s.plan[1].stage2.kept.size());
    CHECK(reports[1].reason.rfind("no passing stage-1/stage-2 pair on one block_m (" +
                                      std::to_string(s.plan[1].stage2.kept.size()) + " of ",
                                  0) == 0);
    CHECK(reports[2].status == BucketStatus::tuned);
    CHECK(reports[2].over_err_ratio == 2);
    CHECK(reports[2].failed == 0);
    CHECK(reports[2].winner->stage1.kernel_name != w.stage1);
    CHECK(column(s.out(), table::col::token) == std::vector<std::string>{"1", "4"});

    const std::string not_finished = format_not_finished(reports);
    CHECK(not_finished.rfind("[Tuning not Finished] 1 of 3 (shape, bucket) entries have no row:\n", 0) == 0);
    CHECK(not_finished.find("5120x2304 E96 top5, token 2 (") != std::string::npos);

    const std::string profile = read_text(*s.settings.profile_out);
    CHECK(profile.find("," + w.stage1 + ",1.0,0.5,1.50,err>ratio,\n") != std::string::npos);
    CHECK(profile.find("," + w.stage2 + ",,,,err>ratio,wrong: cosine 0.31 > 0.1\n") != std::string::npos);
    CHECK(profile.find(",,,,failed,fault: worker exited with signal 11\n") != std::string::npos);
}

TEST_CASE("sweep: a pair whose stages need a pass between them is charged its time, in us1") {
    Sweep s;
    s.plan.resize(1);  // one token
    // A _fp8 stage 1 and a stage 2 on interleaved rebased rows, both of sort block 16.
    const Winners w = designated(
        s.plan.front(), [](const kernels::KernelConfig& c) { return c.fused_mxfp8_out; },
        [](const kernels::KernelConfig& c) {
            return kernels::stage2_input(c) == kernels::Stage2Input::interleaved_rebased_rows;
        });
    const std::string& fp8 = w.stage1;
    const std::string& rebased = w.stage2;
    REQUIRE(!fp8.empty());
    REQUIRE(!rebased.empty());
    const std::string pass = "mxfp8_rebase_interleaved";
    // They run in 10 + 20 us, the passes in `pass_us` (< 0: they fail), everything else in 100 + block_m.
    const auto run_with_pass = [&](double pass_us) {
        FakeRunner runner(canned(w, 1.0, pass_us));
        return s.run(runner);
    };

    std::vector<BucketReport> reports = run_with_pass(5);
    table::Table t = s.out();
    REQUIRE(t.rows.size() == 1);
    CHECK(t.cell(t.rows[0], table::col::kernel_name1) == fp8);
    CHECK(t.cell(t.rows[0], table::col::kernel_name2) == rebased);
    CHECK(t.cell(t.rows[0], table::col::us1) == "15.0");  // the kernel and the pass
    CHECK(t.cell(t.rows[0], table::col::us2) == "20.0");
    CHECK(t.cell(t.rows[0], table::col::us) == "35.0");
    CHECK(reports[0].handoff_passes.at(pass) == 5.0);
    const auto report = nlohmann::json::parse(read_text(*s.settings.report));
    CHECK(report["buckets"][0]["winner"]["handoff_us"] == 5.0);
    CHECK(report["buckets"][0]["winner"]["us1"] == 15.0);
    CHECK(report["buckets"][0]["handoff_passes"][pass] == 5.0);

    // A pass that fails leaves out the pairs that need it, not the bucket.
    std::filesystem::remove(s.settings.output);
    reports = run_with_pass(-1);
    t = s.out();
    REQUIRE(t.rows.size() == 1);
    CHECK(reports[0].status == BucketStatus::tuned);
    CHECK_FALSE(reports[0].handoff_passes.at(pass));
    CHECK(t.cell(t.rows[0], table::col::kernel_name1) == fp8);
    CHECK(t.cell(t.rows[0], table::col::kernel_name2) != rebased);
    CHECK(t.cell(t.rows[0], table::col::us) == "126.0");  // 10 + the fastest other stage 2 of block 16
}

TEST_CASE("sweep: unsupported entries are reported, not measured, and leave the run unfinished") {
    Sweep s;
    s.plan[1].problem.reset();
    s.plan[1].skip_reason = "unsupported act_type ActivationType.Gelu";
    s.plan[1].stage1 = {};
    s.plan[1].stage2 = {};
    FakeRunner runner(canned(s.winners));
    const auto reports = s.run(runner);
    CHECK(runner.batches.size() == 2);
    CHECK(reports[1].status == BucketStatus::unsupported);
    CHECK(format_not_finished(reports).find("unsupported: unsupported act_type ActivationType.Gelu") !=
          std::string::npos);
    CHECK(column(s.out(), table::col::token) == std::vector<std::string>{"1", "4"});
}

TEST_CASE("sweep: the next bucket compiles while this one is measured; compile failures skip the GPU") {
    Sweep s;
    std::vector<std::string> events;
    FakeCompileAhead compiler;
    compiler.events = &events;
    compiler.failing[s.winners.stage1] = "compile: error: too many resources requested";
    FakeRunner runner(canned(s.winners));
    runner.events = &events;
    const auto reports = run_sweep(s.plan, s.target, s.settings, runner, compiler);

    const auto n = [&](std::size_t i) { return std::to_string(s.plan[i].candidate_count()); };
    CHECK(events == std::vector<std::string>{"start " + n(0), "wait " + n(0), "start " + n(1), "measure 1",
                                             "wait " + n(1), "start " + n(2), "measure 2", "wait " + n(2),
                                             "measure 4"});
    REQUIRE(runner.batches.size() == s.plan.size());  // one measuring pass per bucket
    for (std::size_t i = 0; i < runner.batches.size(); ++i) {
        CHECK(runner.batches[i].size() + 1 == s.plan[i].candidate_count() + pass_count(s.plan[i], s.winners.stage1));
        for (const auto& task : runner.batches[i]) CHECK(task.kernel_name != s.winners.stage1);
    }
    CHECK(reports[0].failed == 1);
    CHECK(reports[0].tried == s.plan[0].candidate_count());
    CHECK(reports[0].winner->stage1.kernel_name != s.winners.stage1);
    CHECK(read_text(*s.settings.profile_out).find("," + s.winners.stage1 +
                                                  ",,,,failed,compile: error: too many resources requested\n") !=
          std::string::npos);
}

TEST_CASE("sweep: tasks carry the settings, the bucket's problem and one kernel each") {
    Sweep s;
    s.settings.task.seed = 42;
    s.settings.task.routing = "skewed:1.5";
    s.settings.task.arch = "sm_90a";
    s.settings.task.metric = "row-cosine";
    s.settings.task.test_break = 2;
    FakeRunner runner(canned(s.winners));
    s.run(runner);
    REQUIRE(runner.batches.size() == 3);
    for (std::size_t b = 0; b < 3; ++b) {
        std::vector<std::string> names;
        for (const auto& t : runner.batches[b]) {
            CHECK(t.seed == 42);
            CHECK(t.routing == "skewed:1.5");
            CHECK(t.arch == "sm_90a");
            CHECK(t.metric == "row-cosine");
            CHECK(t.test_break == 2);
            CHECK(t.shape.tokens == s.plan[b].problem->tokens);
            CHECK(t.shape.model_dim == 5120);
            names.push_back(t.kernel_name);
        }
        std::sort(names.begin(), names.end());
        CHECK(std::adjacent_find(names.begin(), names.end()) == names.end());
        CHECK(names.size() == s.plan[b].candidate_count() + pass_count(s.plan[b]));
    }
}

TEST_CASE("sweep: the report describes each bucket") {
    Sweep s;
    FakeRunner runner(canned(s.winners));
    s.settings.run.gfx = "gfx950";
    s.settings.run.shard = "0/1";
    s.run(runner);
    const auto report = nlohmann::json::parse(read_text(*s.settings.report));
    CHECK(report["finished"] == true);
    CHECK(report["gfx"] == "gfx950");
    const auto& b = report["buckets"][1];
    CHECK(b["token"] == 2);
    CHECK(b["shape"]["model_dim"] == "5120");
    CHECK(b["status"] == "tuned");
    CHECK(b["winner"]["block_m"] == 16);
    CHECK(b["winner"]["kernelName1"] == s.winners.stage1);
    CHECK(b["winner"]["us"] == 30.0);
    CHECK(b["runner_up"]["block_m"] == 32);
    CHECK(b["candidates"]["tried"] == s.plan[1].candidate_count());
    CHECK(b["candidates"]["pruned"] == s.plan[1].pruned_count());
    CHECK(b["compile_wall_s"].is_number());
    CHECK(b["timing_wall_s"].is_number());
    CHECK(b["previous_us"].is_null());
}

namespace {

// A fake GPU: canned results after a random delay, so tasks finish out of order across workers.
class CannedWorker : public TaskWorker {
public:
    CannedWorker(int id, Winners w) : id_(id), w_(std::move(w)) {}
    measure::MeasureResult run(const measure::MeasureTask& t) override {
        std::this_thread::sleep_for(std::chrono::microseconds((t.kernel_name.size() * 7 + id_ * 13) % 50));
        return canned(w_)(t);
    }
    std::string name() const override { return "GPU " + std::to_string(id_); }
    int restarts() const override { return 0; }

private:
    int id_;
    Winners w_;
};

std::string sweep_with_workers(int count) {
    Sweep s;
    std::vector<std::unique_ptr<TaskWorker>> workers;
    for (int i = 0; i < count; ++i) workers.push_back(std::make_unique<CannedWorker>(i, s.winners));
    WorkerPool pool(std::move(workers));
    s.run(pool);
    return read_text(s.settings.output) + read_text(*s.settings.profile_out);
}

}  // namespace

TEST_CASE("sweep: the table and the profile are the same from one worker or several") {
    const std::string one = sweep_with_workers(1);
    CHECK(sweep_with_workers(3) == one);
}

TEST_CASE("summary: one line per bucket with status, block_m, us and kernels") {
    Sweep s;
    FakeRunner runner(canned(s.winners));
    std::vector<BucketReport> reports = s.run(runner);
    reports[2].status = BucketStatus::failed;
    reports[2].winner.reset();
    reports[2].reason = "no passing pair";
    const std::string text = format_summary(reports);
    CHECK(text.rfind("model_dim 5120 inter_dim 2304 expert 96 topk 5 ActivationType.Silu torch.bfloat16 "
                     "torch.float8_e4m3fn torch.float4_e2m1fn_x2 QuantType.per_1x32 use_g1u1 1 doweight_stage1 0\n",
                     0) == 0);
    CHECK(text.find("       1  tuned               16       30.0000") != std::string::npos);
    CHECK(text.find(s.winners.stage1 + " + " + s.winners.stage2) != std::string::npos);
    CHECK(text.find("       4  failed               -             -") != std::string::npos);
    CHECK(text.find("no passing pair") != std::string::npos);
}

TEST_CASE("sweep: screening times every candidate briefly and only the finalists in full") {
    Sweep s;
    s.plan.resize(1);  // one bucket
    s.settings.screening = measure::TimingOptions{.launches_per_graph = 5, .warmup_replays = 1, .timed_replays = 3};
    s.settings.finalist_margin = 1.25;
    s.settings.task.timing = measure::TimingOptions{.launches_per_graph = 20, .warmup_replays = 3, .timed_replays = 15};
    // The designated pair is fastest at sort block 16; everything else takes 100 + block_m us, so
    // per (stage, block_m, kind) every other candidate ties with the fastest -- except at block 16,
    // where the designated kernels are 10x faster and nothing else of their kinds is a finalist.
    FakeRunner runner(canned(s.winners));
    const std::vector<BucketReport> reports = s.run(runner);

    REQUIRE(runner.batches.size() == 2);
    const auto& screen = runner.batches[0];
    const auto& full = runner.batches[1];
    CHECK(screen.size() == s.plan[0].candidate_count());
    for (const auto& t : screen) CHECK(t.timing.timed_replays == 3);
    for (const auto& t : full) CHECK(t.timing.timed_replays == 15);
    const auto timed_in_full = [&](const std::string& name) {
        return std::any_of(full.begin(), full.end(), [&](const auto& t) { return t.kernel_name == name; });
    };
    CHECK(timed_in_full(s.winners.stage1));
    CHECK(timed_in_full(s.winners.stage2));
    const kernels::KernelConfig winner1 = *kernels::parse_kernel_name(s.winners.stage1);
    const kernels::KernelConfig winner2 = *kernels::parse_kernel_name(s.winners.stage2);
    std::size_t sort_block_16_of_their_kinds = 0, passes = 0;
    for (const auto& t : full) {
        if (kernels::parse_handoff_pass(t.kernel_name)) {
            ++passes;
            continue;
        }
        const kernels::KernelConfig c = *kernels::parse_kernel_name(t.kernel_name);
        const kernels::KernelConfig& winner = c.stage == kernels::Stage::gate_up ? winner1 : winner2;
        if (kernels::sort_block_m(c) == 16 && t.kernel_name != kernels::kernel_name(winner) &&
            candidate_kind(c) == candidate_kind(winner))
            ++sort_block_16_of_their_kinds;
    }
    CHECK(sort_block_16_of_their_kinds == 0);
    CHECK(passes == pass_count(s.plan[0]));  // timed once, with the full timing
    CHECK(full.size() < screen.size());

    const table::Table t = s.out();
    REQUIRE(t.rows.size() == 1);
    CHECK(t.cell(t.rows[0], table::col::kernel_name1) == s.winners.stage1);
    CHECK(t.cell(t.rows[0], table::col::us) == "30.0");
    REQUIRE(reports.size() == 1);
    CHECK(reports[0].tried == s.plan[0].candidate_count());  // candidates, not measurements
}

namespace {

// The designated stage 1's rival: the next stage-1 candidate of sort block 16 and the same kind.
std::string rival_of(const PlanEntry& e, const std::string& stage1) {
    const kernels::KernelConfig w = *kernels::parse_kernel_name(stage1);
    bool past = false;
    for (const auto& c : e.stage1.kept) {
        const std::string name = kernels::kernel_name(c);
        if (past && kernels::sort_block_m(c) == 16 && candidate_kind(c) == candidate_kind(w)) return name;
        past = past || name == stage1;
    }
    return "";
}

// canned() with SM clock readings: the designated stage 1 first timed at 10 us at 2100 MHz, its rival
// at 10.3 us at 1980 MHz; timed again (at 2040 MHz) the rival is faster, 10.1-10.3 against 10.5-10.7.
// `rival_fails_round` (1-based; 0: none): that recheck round of the rival fails. Everything else at 2040 MHz.
auto clocked(const Winners& w, const std::string& rival, std::map<std::string, int>& calls, int rival_fails_round = 0) {
    return [&calls, w, rival, rival_fails_round](const measure::MeasureTask& t) {
        const int call = calls[t.kernel_name]++;  // 0: the bucket's timing, 1..: the rechecks
        const auto at = [](measure::MeasureResult r, double mhz) {
            r.sm_mhz_before = r.sm_mhz_after = mhz;
            return r;
        };
        const std::vector<double> designated_us = {10, 10.6, 10.5, 10.7}, rival_us = {10.3, 10.2, 10.1, 10.3};
        if (t.kernel_name == w.stage1) return at(test::passing(t, designated_us.at(call)), call ? 2040 : 2100);
        if (t.kernel_name == rival) {
            if (rival_fails_round > 0 && call == rival_fails_round) return test::failing(t, "fault: illegal address");
            return at(test::passing(t, rival_us.at(call)), call ? 2040 : 1980);
        }
        return at(canned(w)(t), 2040);
    };
}

}  // namespace

TEST_CASE("sweep: candidates timed at different SM clocks, close enough to be reordered, are timed again interleaved") {
    Sweep s;
    s.plan.resize(1);
    const std::string rival = rival_of(s.plan[0], s.winners.stage1);
    REQUIRE(!rival.empty());
    std::map<std::string, int> calls;
    FakeRunner runner(clocked(s.winners, rival, calls));
    const std::vector<BucketReport> reports = s.run(runner);

    // One batch for the bucket, then the two stage-1 candidates 3 rounds, round by round. The other
    // groups met one clock, and the other candidates of the pair's group are 10x slower.
    REQUIRE(runner.batches.size() == 2);
    std::vector<std::string> rechecked;
    for (const auto& t : runner.batches[1]) rechecked.push_back(t.kernel_name);
    CHECK(rechecked == std::vector<std::string>{s.winners.stage1, rival, s.winners.stage1, rival, s.winners.stage1, rival});
    for (const auto& t : runner.batches[1]) CHECK(t.timing.timed_replays == s.settings.task.timing.timed_replays);

    // Each keeps its median round: the rival (10.2) beats the designated kernel (10.6) at one clock.
    const table::Table t = s.out();
    REQUIRE(t.rows.size() == 1);
    CHECK(t.cell(t.rows[0], table::col::kernel_name1) == rival);
    CHECK(t.cell(t.rows[0], table::col::us1) == "10.2");
    REQUIRE(reports.size() == 1);
    CHECK(reports[0].clock_rechecked == 2);
    CHECK(reports[0].sm_clock.low_mhz == 1980);
    CHECK(reports[0].sm_clock.high_mhz == 2100);
    const auto report = nlohmann::json::parse(read_text(*s.settings.report));
    CHECK(report["buckets"][0]["sm_clock"] == nlohmann::json{{"low_mhz", 1980.0}, {"high_mhz", 2100.0}, {"rechecked", 2}, {"changed_winner", true}});
    CHECK(read_text(*s.settings.profile_out).find(rival + ",10.2,") != std::string::npos);
}

TEST_CASE("sweep: a candidate that fails a clock recheck round fails; --clock-rounds 0 rechecks nothing") {
    Sweep s;
    s.plan.resize(1);
    const std::string rival = rival_of(s.plan[0], s.winners.stage1);
    std::map<std::string, int> calls;
    SECTION("a failed round") {
        FakeRunner runner(clocked(s.winners, rival, calls, 2));
        const std::vector<BucketReport> reports = s.run(runner);
        REQUIRE(runner.batches.size() == 2);
        REQUIRE(reports.size() == 1);
        CHECK(reports[0].failed == 1);
        CHECK(s.out().cell(s.out().rows[0], table::col::kernel_name1) == s.winners.stage1);
        CHECK(s.out().cell(s.out().rows[0], table::col::us1) == "10.6");  // its median round
        CHECK(reports[0].clock_rechecked == 2);
        CHECK_FALSE(reports[0].clock_changed_winner);  // the same kernels, at another time
    }
    SECTION("no rounds") {
        s.settings.clock_rounds = 0;
        FakeRunner runner(clocked(s.winners, rival, calls));
        const std::vector<BucketReport> reports = s.run(runner);
        CHECK(runner.batches.size() == 1);
        CHECK(s.out().cell(s.out().rows[0], table::col::us1) == "10.0");  // the first timing decides
        CHECK(reports[0].clock_rechecked == 0);
        CHECK_FALSE(reports[0].clock_changed_winner);
    }
}
