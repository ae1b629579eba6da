#pragma once
// Timing flags shared by the commands that time kernels (measure, sweep, bench), so each is spelled
// and explained once.
#include <CLI/CLI.hpp>

namespace moetune::cli {

// --replay-ms: the length one graph replay aims at (measure::TimingOptions::replay_ms); 0 keeps
// the fixed launch count.
void add_replay_ms_option(CLI::App& app, double& replay_ms);

}  // namespace moetune::cli
