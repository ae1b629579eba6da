// moetune candidates: the kernels moetune would compile and time for each shape row (or each
// distinct shape at --tokens N), after static pruning. -v also logs every pruned config with its
// reason. Needs no GPU: limits come from the --arch preset.
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

#include "cli/command.h"
#include "cli/number_checks.h"
#include "cli/exit_codes.h"
#include "cli/candidate_options.h"
#include "common/input_error.h"
#include "kernels/candidates.h"
#include "kernels/device_limits.h"
#include "kernels/kernel_name.h"
#include "kernels/shape_rows.h"

namespace moetune::cli {
namespace {

struct CandidatesOptions {
    std::string shapes;
    int tokens = 0;  // 0: each row's own token count
    int stage = 0;   // 0: both
    std::string arch = "sm_90a";
    bool no_heuristics = false;
    std::vector<kernels::MmaPath> mma_paths = kernels::EnumerationOptions{}.mma_paths;
    std::string kernels;  // --kernels
};

int run_candidates(const CandidatesOptions& o) {
    const kernels::DeviceLimits limits = *kernels::device_limits_for_arch(o.arch);  // --arch is checked by CLI11
    kernels::EnumerationOptions options;
    options.heuristics = !o.no_heuristics;
    options.mma_paths = o.mma_paths;
    options.names = kernels::name_filter(o.kernels);  // checked by CLI11

    kernels::ShapeRows rows;
    try {
        rows = kernels::read_shape_rows(o.shapes, o.tokens > 0 ? std::vector<int>{o.tokens} : std::vector<int>{});
    } catch (const InputError& e) {
        spdlog::error("{}", e.what());
        return kExitUsage;
    }
    for (const std::string& s : rows.skipped) spdlog::error("{}; row skipped", s);

    std::vector<kernels::Stage> stages;
    if (o.stage != 2) stages.push_back(kernels::Stage::gate_up);
    if (o.stage != 1) stages.push_back(kernels::Stage::down);

    bool empty_stage = false;
    std::set<std::string> distinct[2];
    for (const kernels::ShapeRow& job : rows.rows) {
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
                spdlog::error("{}: token {}: {} (-v lists why)", job.where, s.tokens,
                              kernels::empty_list_reason(stage, list, o.arch));
                empty_stage = true;
            }
        }
    }
    fmt::print("{} shapes on {}: {} distinct stage-1 and {} distinct stage-2 kernels\n", rows.rows.size(), o.arch,
               distinct[0].size(), distinct[1].size());
    return !rows.skipped.empty() || empty_stage ? kExitFailed : kExitOk;
}

}  // namespace

Command add_candidates_command(CLI::App& parent) {
    auto o = std::make_shared<CandidatesOptions>();
    CLI::App* app = parent.add_subcommand(
        "candidates", "List the candidate kernels of each shape after static pruning (-v: also the pruned ones and why)");
    app->add_option("--shapes", o->shapes, "Untuned shape CSV (AITER format)")->required();
    app->add_option("--tokens", o->tokens, "Enumerate every distinct shape at this token count instead of each row's")
        ->check(number_in(1, (1 << 24) - 1));
    app->add_option("--stage", o->stage, "Only this stage (1: gate/up, 2: down)")->check(CLI::IsMember({1, 2}));
    app->add_option("--arch", o->arch, "Target whose limits prune the configs")
        ->check(CLI::IsMember(kernels::known_archs()))
        ->capture_default_str();
    app->add_flag("--no-heuristics", o->no_heuristics,
                  "Keep configs the block_m heuristic would prune (only hard limits prune)");
    add_mma_option(*app, o->mma_paths);
    add_kernels_option(*app, o->kernels);
    return Command{app, [o] { return run_candidates(*o); }};
}

}  // namespace moetune::cli
