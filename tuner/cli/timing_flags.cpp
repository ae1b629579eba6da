#include "cli/timing_flags.h"

#include <stdexcept>
#include <string>

#include "cli/number_checks.h"
#include "measure/measure_task.h"

namespace moetune::cli {

void add_replay_ms_option(CLI::App& app, double& replay_ms) {
    app.add_option("--replay-ms", replay_ms,
                   "Adapt the launches captured per graph (at most 20) so one replay lasts about this long; 0 "
                   "always captures 20")
        ->check(non_negative_number())
        ->capture_default_str();
}

void add_routings_option(CLI::App& app, std::optional<int>& routings) {
    app.add_option("--routings", routings,
                   "Routings the timed launches take in turn (seeds seed, seed+1, ...), so that one launch's "
                   "experts do not find their weights in the L2 the launch before left, as in a model; default " +
                       std::to_string(kDefaultTimedRoutings) + " for random and skewed routings, 1 for the others")
        ->check(number_in(1, measure::kMaxTimedRoutings));
}

int timed_routings(const std::optional<int>& flag, const std::string& routing_flag, const data::RoutingSpec& routing) {
    if (!flag) return data::varies_with_seed(routing) ? kDefaultTimedRoutings : 1;
    if (*flag > 1 && !data::varies_with_seed(routing))
        throw std::invalid_argument("--routings " + std::to_string(*flag) + ": --routing " + routing_flag +
                                    " is the same whatever the seed; rotate random or skewed routings");
    return *flag;
}

}  // namespace moetune::cli
