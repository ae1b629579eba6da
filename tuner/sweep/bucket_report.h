#pragma once
// What happened to each (shape, bucket) of a sweep: the `--report RUN.json` content, the summary
// table and the exit status are all made from these.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock_range.h"
#include "select/winner.h"
#include "table/table_shape.h"

namespace moetune::sweep {

enum class BucketStatus {
    pending,         // not reached yet (a report written midway)
    tuned,           // a winner was written to OUT
    kept_existing,   // --retune: the row in OUT was kept, the new winner was not faster by the margin
    already_tuned,   // OUT already had the key (rerun without --retune): nothing measured
    unsupported,     // the kernels do not implement the shape, or no candidate fits it
    failed,          // candidates ran, but no stage-1/stage-2 pair passed
};

std::string_view status_name(BucketStatus s);  // "tuned", "kept-existing", ...
// Whether the bucket leaves the run unfinished ("[Tuning not Finished]", exit 1).
bool leaves_unfinished(BucketStatus s);

struct BucketReport {
    table::TableShape shape;  // token = the bucket
    std::string where;        // the shapes row, FILE:LINE
    BucketStatus status = BucketStatus::pending;
    std::string reason;       // for unsupported, failed and kept_existing
    std::optional<select::PairChoice> winner;
    std::optional<select::PairChoice> runner_up;
    // The passes between the stages timed for this bucket (sweep/handoff_passes.h) by name, with
    // their µs; nullopt for one that failed (the pairs that need it were left out).
    std::map<std::string, std::optional<double>> handoff_passes;
    std::optional<double> previous_us;  // the us of the row OUT had before (--retune)
    std::size_t tried = 0;              // candidates sent to measurement (or failed to compile)
    std::size_t failed = 0;             // of those: failed (compile, launch, fault, timeout, wrong)
    std::size_t over_err_ratio = 0;     // of those: ran, but err > --err-ratio
    std::size_t pruned = 0;             // dropped by static pruning, never compiled
    std::size_t clock_rechecked = 0;    // candidates timed again because their timings met different SM clocks
    bool clock_changed_winner = false;  // and the pair that won before they were is not the one that won after
    ClockRange sm_clock;                // the lowest and highest SM clock its candidates' timings met (0: not read)
    double compile_wall_s = 0;          // waiting for this bucket's kernels to compile
    double timing_wall_s = 0;           // measuring this bucket's candidates on the GPUs
};

}  // namespace moetune::sweep
