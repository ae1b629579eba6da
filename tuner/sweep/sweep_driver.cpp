#include "sweep/sweep_driver.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <stdexcept>

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

#include "kernels/kernel_name.h"
#include "measure/failure.h"
#include "select/clock_recheck.h"
#include "select/improvement.h"
#include "select/screening.h"
#include "select/winner.h"
#include "sweep/candidate_outcome.h"
#include "sweep/handoff_passes.h"
#include "sweep/output_paths.h"
#include "sweep/profile_log.h"
#include "sweep/run_report.h"
#include "sweep/tuned_output.h"

namespace moetune::sweep {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::vector<kernels::KernelConfig> configs_of(const PlanEntry& e) {
    std::vector<kernels::KernelConfig> configs = e.stage1.kept;
    configs.insert(configs.end(), e.stage2.kept.begin(), e.stage2.kept.end());
    return configs;
}

std::vector<select::CandidateResult> results_of(const std::vector<MeasuredCandidate>& candidates) {
    std::vector<select::CandidateResult> results;
    for (const MeasuredCandidate& m : candidates) results.push_back(candidate_result(m));
    return results;
}

// The measurement of the median round (the lower of the middle two), or the first failed one.
const measure::MeasureResult& median_round(std::vector<const measure::MeasureResult*> rounds) {
    const auto failed = std::find_if(rounds.begin(), rounds.end(), [](auto* r) { return !r->ok; });
    if (failed != rounds.end()) return **failed;
    std::sort(rounds.begin(), rounds.end(), [](auto* a, auto* b) { return a->us < b->us; });
    return *rounds[(rounds.size() - 1) / 2];
}

// Runs a write; any failure to write becomes CannotWriteOutput naming what was being written.
template <class Write>
void writing(const char* what, const std::filesystem::path& path, Write write) {
    try {
        write();
    } catch (const std::exception& e) {
        throw CannotWriteOutput(std::string("cannot write the ") + what + " " + path.string() + ": " + e.what());
    }
}

table::TunedRow tuned_row(const PlanTarget& target, const table::TableShape& shape, const select::PairChoice& w) {
    table::TunedRow row;
    row.gfx = target.gfx;
    row.cu_num = target.cu_num;
    row.shape = shape;
    row.block_m = w.block_m;  // the sort block = stage-1 tile_m
    row.ksplit = 0;
    row.us1 = w.us1();  // with the pass between the stages, if the pair runs one
    row.kernel_name1 = w.stage1.kernel_name;
    row.err1 = w.stage1.err;
    row.us2 = w.stage2.us;
    row.kernel_name2 = w.stage2.kernel_name;
    row.err2 = w.stage2.err;
    row.us = w.us();
    return row;  // run_1stage, xbf16, flat: 0 (two stages, MXFP8 input, sorted)
}

class BucketRun {
public:
    BucketRun(const PlanEntry& entry, BucketReport& report, const PlanTarget& target, const SweepSettings& settings)
        : entry_(entry),
          report_(report),
          target_(target),
          settings_(settings),
          work_(candidate_work(entry.problem->tokens)) {}

    void run(TaskRunner& runner, CompileAhead& compiler, const PlanEntry* next, Progress& progress) {
        const std::vector<kernels::KernelConfig> configs = configs_of(entry_);
        const Clock::time_point compile_start = Clock::now();
        const std::map<std::string, std::string> compile_failures = compiler.wait(configs);
        report_.compile_wall_s = seconds_since(compile_start);
        progress.leave_out_wait(report_.compile_wall_s);
        if (next) compiler.start(configs_of(*next));  // compiles while this bucket is measured

        std::vector<MeasuredCandidate> candidates;
        std::vector<std::size_t> to_measure;
        for (const kernels::KernelConfig& c : configs) {
            MeasuredCandidate m{c, {}};
            m.result.kernel_name = kernels::kernel_name(c);
            if (auto it = compile_failures.find(m.result.kernel_name); it != compile_failures.end()) {
                m.result.failure = it->second;  // not sent to a GPU
                progress.candidate_done(work_);
            } else {
                to_measure.push_back(candidates.size());
            }
            candidates.push_back(std::move(m));
        }

        std::vector<kernels::KernelConfig> measured_configs;
        for (std::size_t i : to_measure) measured_configs.push_back(candidates[i].config);
        // Timed with the candidates' full timing, in its batch (sweep/handoff_passes.h).
        const std::vector<kernels::StageHandoff> passes = handoff_passes(measured_configs);
        progress.add_candidates(passes.size(), work_);

        const Clock::time_point timing_start = Clock::now();
        if (settings_.screening) {
            // Brief timing for all, full timing for the few that can still win (select/screening.h).
            measure_pass(candidates, to_measure, {}, *settings_.screening, runner, progress);
            const std::vector<std::size_t> finalists = select::screening_finalists(
                results_of(candidates), settings_.task.err_ratio, settings_.finalist_margin);
            progress.add_candidates(finalists.size(), work_);
            measure_pass(candidates, finalists, passes, settings_.task.timing, runner, progress);
        } else {
            measure_pass(candidates, to_measure, passes, settings_.task.timing, runner, progress);
        }
        for (const MeasuredCandidate& m : candidates) note_clocks(m.result);
        recheck_clocks(candidates, runner, progress);
        report_.timing_wall_s = seconds_since(timing_start);
        decide(candidates);
        if (settings_.profile_out)
            writing("profile", *settings_.profile_out, [&] {
                append_profile(*settings_.profile_out, target_.gfx, target_.cu_num, entry_.shape, candidates,
                               settings_.task.err_ratio);
            });
    }

private:
    // Each name measured once with `timing`, in order: one batch of the runner.
    std::vector<measure::MeasureResult> run_tasks(const std::vector<std::string>& names,
                                                  const measure::TimingOptions& timing, TaskRunner& runner,
                                                  Progress& progress) {
        std::vector<measure::MeasureTask> tasks;
        for (const std::string& name : names) {
            measure::MeasureTask task = settings_.task;
            task.shape = *entry_.problem;
            task.kernel_name = name;
            task.timing = timing;
            tasks.push_back(std::move(task));
        }
        std::vector<measure::MeasureResult> results = runner.run(tasks, [&] { progress.candidate_done(work_); });
        if (results.size() != tasks.size())
            throw std::logic_error("the task runner returned " + std::to_string(results.size()) + " results for " +
                                   std::to_string(tasks.size()) + " tasks");
        return results;
    }

    // Measures candidates[i] for every i in `which` and the handoff `passes` with `timing`, replacing
    // the candidates' results and setting the passes' times in the report (what the selection charges).
    void measure_pass(std::vector<MeasuredCandidate>& candidates, const std::vector<std::size_t>& which,
                      const std::vector<kernels::StageHandoff>& passes, const measure::TimingOptions& timing,
                      TaskRunner& runner, Progress& progress) {
        std::vector<std::string> names;
        for (std::size_t i : which) names.push_back(candidates[i].result.kernel_name);
        for (kernels::StageHandoff h : passes) names.emplace_back(*kernels::handoff_pass_name(h));
        const std::vector<measure::MeasureResult> results = run_tasks(names, timing, runner, progress);
        for (std::size_t p = 0; p < passes.size(); ++p) {
            const measure::MeasureResult& r = results[which.size() + p];
            const std::string name(*kernels::handoff_pass_name(passes[p]));
            std::optional<double>& us = report_.handoff_passes[name];
            us.reset();
            if (select::measured(select::CandidateResult{.kernel_name = name, .ok = r.ok, .us = r.us})) {
                us = r.us;
            } else {
                spdlog::warn("{}: the {} pass between the stages failed ({}); the pairs that run it are left out",
                             short_label(entry_.shape), name, r.ok ? "no usable time" : r.failure);
            }
        }
        for (std::size_t t = 0; t < which.size(); ++t) take_result(candidates[which[t]], results[t]);
    }

    // The candidates whose timings met different SM clocks, close enough to the fastest of their stage,
    // block_m and kind for the clocks to have reordered them (select/clock_recheck.h), are timed again
    // clock_rounds times each, round by round, so that each meets the clocks the others meet. Each keeps
    // the measurement of its median round (a whole measurement: time, clocks and spread agree), or the
    // first failure, since a kernel that fails once cannot be trusted with a row.
    void recheck_clocks(std::vector<MeasuredCandidate>& candidates, TaskRunner& runner, Progress& progress) {
        if (settings_.clock_rounds < 1) return;
        const std::vector<std::size_t> which = select::clock_recheck(results_of(candidates), settings_.task.err_ratio);
        if (which.empty()) return;
        const std::optional<select::PairChoice> first = select_pair(candidates).winner;
        std::vector<std::string> names;
        for (int round = 0; round < settings_.clock_rounds; ++round)
            for (std::size_t i : which) names.push_back(candidates[i].result.kernel_name);
        progress.add_candidates(names.size(), work_);
        const std::vector<measure::MeasureResult> rounds = run_tasks(names, settings_.task.timing, runner, progress);
        for (const measure::MeasureResult& r : rounds) note_clocks(r);
        for (std::size_t k = 0; k < which.size(); ++k) {
            std::vector<const measure::MeasureResult*> of_one;
            for (std::size_t round = 0; round < std::size_t(settings_.clock_rounds); ++round)
                of_one.push_back(&rounds[round * which.size() + k]);
            take_result(candidates[which[k]], median_round(of_one));
        }
        report_.clock_rechecked = which.size();
        const std::optional<select::PairChoice> rechecked = select_pair(candidates).winner;
        const auto kernels_of = [](const std::optional<select::PairChoice>& p) {
            return p ? p->stage1.kernel_name + " " + p->stage2.kernel_name : std::string();
        };
        report_.clock_changed_winner = kernels_of(first) != kernels_of(rechecked);
        spdlog::debug("{}: {} candidates timed at different SM clocks timed again, {} rounds", short_label(entry_.shape),
                      which.size(), settings_.clock_rounds);
        if (report_.clock_changed_winner)
            spdlog::info("{}: timed again at common clocks, {} wins instead of {}", short_label(entry_.shape),
                         pair_label(rechecked), pair_label(first));
    }

    select::Selection select_pair(const std::vector<MeasuredCandidate>& candidates) const {
        return select::select_winner(results_of(candidates), settings_.task.err_ratio,
                                     handoff_cost(report_.handoff_passes));
    }

    static std::string pair_label(const std::optional<select::PairChoice>& p) {
        return p ? fmt::format("{} + {} ({:.4f} us)", p->stage1.kernel_name, p->stage2.kernel_name, p->us()) : "no pair";
    }

    // A candidate's new result: the name it was sent with (whatever a crashed worker filled in), and a
    // failure for an ok result without a usable time.
    static void take_result(MeasuredCandidate& m, const measure::MeasureResult& r) {
        const std::string name = m.result.kernel_name;
        m.result = r;
        m.result.kernel_name = name;
        if (m.result.ok && !select::measured(candidate_result(m)))
            m.result.failure = measure::failure_text("internal", fmt::format("no usable time ({} us)", m.result.us));
    }

    // Widens the report's range of SM clocks the bucket's timings met by r's readings.
    void note_clocks(const measure::MeasureResult& r) {
        report_.sm_clock.add(r.sm_mhz_before);
        report_.sm_clock.add(r.sm_mhz_after);
    }

    void decide(const std::vector<MeasuredCandidate>& candidates) {
        const double err_ratio = settings_.task.err_ratio;
        for (const MeasuredCandidate& m : candidates) {
            switch (candidate_outcome(m, err_ratio)) {
                case CandidateOutcome::failed: ++report_.failed; break;
                case CandidateOutcome::over_err_ratio: ++report_.over_err_ratio; break;
                case CandidateOutcome::pass: break;
            }
        }
        report_.tried = candidates.size();
        const select::Selection s = select_pair(candidates);
        for (int block_m : s.unpaired_block_m)
            spdlog::debug("{}: block_m {}: no passing stage 1 and stage 2 the library can pair", short_label(entry_.shape),
                          block_m);
        report_.winner = s.winner;
        report_.runner_up = s.runner_up;
        if (!s.winner) {
            report_.status = BucketStatus::failed;
            report_.reason = fmt::format("no passing stage-1/stage-2 pair on one block_m ({} of {} candidates failed, "
                                         "{} over err-ratio {}; --profile-out lists each)",
                                         report_.failed, report_.tried, report_.over_err_ratio, err_ratio);
            return;
        }

        // Re-read OUT: it is the record of what is finished, whatever happened since the start.
        TunedOutput out = TunedOutput::read(settings_.output);
        const bool had_row = out.contains(entry_.key);
        if (had_row) report_.previous_us = out.us(entry_.key);
        if (had_row && !select::replaces_existing(s.winner->us(), report_.previous_us, settings_.min_improvement_pct)) {
            report_.status = BucketStatus::kept_existing;
            report_.reason = fmt::format("the new winner ({:.4f} us) is not {}% faster than the row in the output "
                                         "({:.4f} us)",
                                         s.winner->us(), settings_.min_improvement_pct, *report_.previous_us);
            return;
        }
        out.put(tuned_row(target_, entry_.shape, *s.winner));
        writing("output", settings_.output, [&] { out.write(settings_.output); });
        report_.status = BucketStatus::tuned;
    }

    const PlanEntry& entry_;
    BucketReport& report_;
    const PlanTarget& target_;
    const SweepSettings& settings_;
    const double work_;  // progress work of each candidate of this bucket (candidate_work)
};

void log_bucket(const BucketReport& r) {
    const std::string label = short_label(r.shape);
    if (r.status == BucketStatus::tuned) {
        const std::string handoff =
            r.winner->handoff_us > 0 ? fmt::format(" + the pass between them, {:.4f} us", r.winner->handoff_us) : "";
        spdlog::info("{}: block_m {}, {:.4f} us ({} + {}{}); {} candidates, {} failed, {} over err-ratio", label,
                     r.winner->block_m, r.winner->us(), r.winner->stage1.kernel_name, r.winner->stage2.kernel_name,
                     handoff, r.tried, r.failed, r.over_err_ratio);
        return;
    }
    if (r.status == BucketStatus::failed) spdlog::error("{}: {}", label, r.reason);
    else spdlog::info("{}: {}: {}", label, status_name(r.status), r.reason);
}

}  // namespace

std::vector<BucketReport> run_sweep(const std::vector<PlanEntry>& entries, const PlanTarget& target,
                                    const SweepSettings& settings, TaskRunner& runner, CompileAhead& compiler) {
    const TunedOutput before = TunedOutput::read(settings.output);
    std::vector<BucketReport> reports(entries.size());
    std::vector<std::size_t> work;
    std::size_t total = 0;
    double total_work = 0;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const PlanEntry& e = entries[i];
        BucketReport& r = reports[i];
        r.shape = e.shape;
        r.where = e.where;
        r.pruned = e.pruned_count();
        if (!e.supported()) {
            r.status = BucketStatus::unsupported;
            r.reason = e.skip_reason;
            spdlog::warn("{} ({}): skipped: {}", short_label(e.shape), e.where, e.skip_reason);
        } else if (!settings.retune && before.contains(e.key)) {
            r.status = BucketStatus::already_tuned;
            r.reason = "the output already has this key (--retune measures it again)";
        } else {
            work.push_back(i);
            total += e.candidate_count();
            total_work += double(e.candidate_count()) * candidate_work(e.problem->tokens);
        }
    }
    const auto save_report = [&](bool finished) {
        if (settings.report)
            writing("report", *settings.report, [&] { write_report(*settings.report, settings, reports, finished); });
    };
    save_report(false);

    Progress progress(total, total_work, settings.progress);
    if (!work.empty()) compiler.start(configs_of(entries[work.front()]));
    for (std::size_t k = 0; k < work.size(); ++k) {
        const PlanEntry& entry = entries[work[k]];
        progress.start_bucket(short_label(entry.shape));
        BucketRun(entry, reports[work[k]], target, settings)
            .run(runner, compiler, k + 1 < work.size() ? &entries[work[k + 1]] : nullptr, progress);
        progress.finish_bucket();
        progress.clear_line();
        log_bucket(reports[work[k]]);
        save_report(false);
    }
    save_report(true);
    return reports;
}

}  // namespace moetune::sweep
