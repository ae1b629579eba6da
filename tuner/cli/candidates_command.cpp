// moetune candidates: the kernels moetune would compile and time for each shape row (or each
// distinct shape at --tokens N), after static pruning. -v also logs every pruned config with its
// reason. Needs no GPU: limits come from the --arch preset.
#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

#include "cli/command.h"
#include "cli/exit_codes.h"
#include "common/input_error.h"
#include "kernels/candidates.h"
#include "kernels/device_limits.h"
#include "kernels/kernel_name.h"
#include "kernels/supported_shape.h"
#include "table/schema.h"
#include "table/table_reader.h"
#include "table/table_shape.h"

namespace moetune::cli {
namespace {

struct CandidatesOptions {
    std::string shapes;
    int tokens = 0;  // 0: each row's own token count
    int stage = 0;   // 0: both
    std::string arch = "sm_90a";
    bool no_heuristics = false;
};

// One shape at one token count, and the row it came from (for messages).
struct ShapeJob {
    std::string where;  // FILE:LINE
    data::MoeShape shape;
};

bool same_shape(const data::MoeShape& a, const data::MoeShape& b) {
    return a.tokens == b.tokens && a.model_dim == b.model_dim && a.inter_dim == b.inter_dim &&
           a.experts == b.experts && a.topk == b.topk;
}

// The shapes to enumerate; rows that are not valid or not supported are reported and skipped
// (*skipped_rows counts them). Throws InputError for a file that is not a shape table.
std::vector<ShapeJob> read_jobs(const CandidatesOptions& o, int* skipped_rows) {
    const table::Table t = table::read_table(o.shapes);
    for (std::string_view c : table::kShapeColumns)
        if (!t.has_column(c)) throw InputError(t.file, t.header_line, "no " + std::string(c) + " column");

    std::vector<ShapeJob> jobs;
    for (const table::TableRow& row : t.rows) {
        std::optional<data::MoeShape> shape;
        try {
            std::string why;
            shape = kernels::supported_moe_shape(table::read_shape(t, row), &why);
            if (!shape) throw InputError(t.file, row.line, why);
        } catch (const InputError& e) {
            spdlog::error("{}; row skipped", e.what());
            ++*skipped_rows;
            continue;
        }
        if (o.tokens > 0) shape->tokens = o.tokens;
        // A repeated row, or one shape at several token counts under --tokens, is listed once.
        const bool seen =
            std::any_of(jobs.begin(), jobs.end(), [&](const ShapeJob& j) { return same_shape(j.shape, *shape); });
        if (!seen) jobs.push_back({t.file + ":" + std::to_string(row.line), *shape});
    }
    return jobs;
}

int run_candidates(const CandidatesOptions& o) {
    const kernels::DeviceLimits limits = *kernels::device_limits_for_arch(o.arch);  // --arch is checked by CLI11
    kernels::EnumerationOptions options;
    options.heuristics = !o.no_heuristics;

    int skipped_rows = 0;
    std::vector<ShapeJob> jobs;
    try {
        jobs = read_jobs(o, &skipped_rows);
    } catch (const InputError& e) {
        spdlog::error("{}", e.what());
        return kExitUsage;
    }

    std::vector<kernels::Stage> stages;
    if (o.stage != 2) stages.push_back(kernels::Stage::gate_up);
    if (o.stage != 1) stages.push_back(kernels::Stage::down);

    bool empty_stage = false;
    std::set<std::string> distinct[2];
    for (const ShapeJob& job : jobs) {
        const data::MoeShape& s = job.shape;
        fmt::print("{}: token {} model_dim {} inter_dim {} expert {} topk {}\n", job.where, s.tokens, s.model_dim,
                   s.inter_dim, s.experts, s.topk);
        for (kernels::Stage stage : stages) {
            const int n = kernels::stage_number(stage);
            const kernels::CandidateList list = kernels::enumerate_candidates(stage, s, limits, options);
            fmt::print("  stage {}: {} candidates, {} pruned\n", n, list.kept.size(), list.pruned.size());
            for (const kernels::KernelConfig& c : list.kept) {
                const std::string name = kernels::kernel_name(c);
                fmt::print("    {}\n", name);
                distinct[n - 1].insert(name);
            }
            for (const kernels::PrunedConfig& p : list.pruned)
                spdlog::debug("{}: token {}: pruned {}: {}", job.where, s.tokens, kernels::kernel_name(p.config), p.reason);
            if (list.kept.empty()) {
                spdlog::error("{}: token {}: no stage-{} kernel fits this shape on {} (-v lists why)", job.where,
                              s.tokens, n, o.arch);
                empty_stage = true;
            }
        }
    }
    fmt::print("{} shapes on {}: {} distinct stage-1 and {} distinct stage-2 kernels\n", jobs.size(), o.arch,
               distinct[0].size(), distinct[1].size());
    return skipped_rows > 0 || empty_stage ? kExitFailed : kExitOk;
}

}  // namespace

Command add_candidates_command(CLI::App& parent) {
    auto o = std::make_shared<CandidatesOptions>();
    CLI::App* app = parent.add_subcommand(
        "candidates", "List the candidate kernels of each shape after static pruning (-v: also the pruned ones and why)");
    app->add_option("--shapes", o->shapes, "Untuned shape CSV (AITER format)")->required();
    app->add_option("--tokens", o->tokens, "Enumerate every distinct shape at this token count instead of each row's")
        ->check(CLI::Range(1, (1 << 24) - 1));
    app->add_option("--stage", o->stage, "Only this stage (1: gate/up, 2: down)")->check(CLI::IsMember({1, 2}));
    app->add_option("--arch", o->arch, "Target whose limits prune the configs")
        ->check(CLI::IsMember(kernels::known_archs()))
        ->capture_default_str();
    app->add_flag("--no-heuristics", o->no_heuristics,
                  "Keep configs the block_m heuristic would prune (only hard limits prune)");
    return Command{app, [o] { return run_candidates(*o); }};
}

}  // namespace moetune::cli
