#pragma once
// Timing flags shared by the commands that time kernels (measure, sweep, bench), so each is spelled
// and explained once.
#include <optional>

#include <CLI/CLI.hpp>

#include "data/routing_spec.h"

namespace moetune::cli {

// --replay-ms: the length one graph replay aims at (measure::TimingOptions::replay_ms); 0 keeps
// the fixed launch count.
void add_replay_ms_option(CLI::App& app, double& replay_ms);

// The routings timed launches take in turn when --routings is not given, for a routing that varies with
// the seed: a few-token launch then finds little of its experts' weights in the L2 that the launches
// before it left (8 routings of 5 experts touch ~33 of 96, ~0.6 GB of DSv4.1 weights, against the H200's 60 MB),
// as a model's MoE layer does, whose other layers run between its calls.
inline constexpr int kDefaultTimedRoutings = 8;

// --routings N (1 to 64): the routings timed launches take in turn, seeds seed, seed + 1, ...
void add_routings_option(CLI::App& app, std::optional<int>& routings);

// The routings to time over: the flag's value, or unset kDefaultTimedRoutings for a routing that varies
// with the seed (data::varies_with_seed) and 1 for one that does not. Throws std::invalid_argument
// naming both flags when the flag asks for more than one routing of a routing that does not vary.
int timed_routings(const std::optional<int>& flag, const std::string& routing_flag, const data::RoutingSpec& routing);

}  // namespace moetune::cli
