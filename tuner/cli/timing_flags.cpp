#include "cli/timing_flags.h"

#include "cli/number_checks.h"

namespace moetune::cli {

void add_replay_ms_option(CLI::App& app, double& replay_ms) {
    app.add_option("--replay-ms", replay_ms,
                   "Adapt the launches captured per graph (at most 20) so one replay lasts about this long; 0 "
                   "always captures 20")
        ->check(non_negative_number())
        ->capture_default_str();
}

}  // namespace moetune::cli
