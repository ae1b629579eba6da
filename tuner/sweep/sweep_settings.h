#pragma once
// The settings of one sweep, shared by the driver (sweep_driver.h) and its report (run_report.h).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "measure/measure_task.h"
#include "sweep/progress.h"

namespace moetune::sweep {

// What the report's header says beyond the settings: where the plan came from and where it runs.
struct RunInfo {
    std::string shapes;   // the shapes file
    std::string gfx;
    long long cu_num = 0;
    std::vector<int> gpus;
    std::string shard;    // "i/n"
};

struct SweepSettings {
    std::filesystem::path output;
    std::optional<std::filesystem::path> profile_out;
    std::optional<std::filesystem::path> report;
    RunInfo run;  // the report's header
    bool retune = false;
    double min_improvement_pct = 3.0;
    // Every task is a copy of this with the shape and kernel name filled in: seed, routing, arch,
    // cache_dir, metric, err_ratio (also the selection's), timing, test_break.
    measure::MeasureTask task;
    // When set: every candidate is first validated and timed with these (brief) options, then only
    // the finalists -- within finalist_margin of the fastest of their stage, block_m and kind -- are
    // timed again with task.timing (select/screening.h).
    std::optional<measure::TimingOptions> screening;
    double finalist_margin = 1.25;
    // Candidates whose timings met different SM clocks, close enough for the clocks to reorder them, are
    // timed this many times more, interleaved, and keep their median (select/clock_recheck.h); 0: never.
    int clock_rounds = 3;
    Progress::Mode progress = Progress::Mode::off;
};

}  // namespace moetune::sweep
