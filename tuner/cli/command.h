#pragma once
// Each command lives in its own file and registers itself on the top-level CLI11 app through one
// add_*_command function; main() runs the one that was parsed. Commands call pipeline stages and
// return an ExitCode; they never call exit() themselves.
#include <functional>

#include <CLI/CLI.hpp>

namespace moetune::cli {

struct Command {
    CLI::App* app = nullptr;
    std::function<int()> run;
};

Command add_check_command(CLI::App& parent);
Command add_merge_command(CLI::App& parent);
Command add_missing_command(CLI::App& parent);
Command add_candidates_command(CLI::App& parent);
Command add_compile_command(CLI::App& parent);
Command add_devices_command(CLI::App& parent);
Command add_sweep_command(CLI::App& parent);
Command add_measure_command(CLI::App& parent);
Command add_worker_command(CLI::App& parent);
Command add_bench_command(CLI::App& parent);

}  // namespace moetune::cli
