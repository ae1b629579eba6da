// moetune: tunes AITER fused-MoE kernels and keeps their tables honest.
#include <cstdio>
#include <exception>
#include <vector>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "cli/command.h"
#include "cli/exit_codes.h"

#ifndef MOETUNE_VERSION
#define MOETUNE_VERSION "unknown"
#endif

int main(int argc, char** argv) {
    using namespace moetune::cli;

    // Diagnostics go to stderr so stdout stays machine-readable (json, csv, github formats).
    spdlog::set_default_logger(spdlog::stderr_color_mt("moetune"));
    spdlog::set_pattern("%^[%l]%$ %v");

    CLI::App app{"moetune: tune AITER fused-MoE kernels and check, merge and extend their tables"};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("moetune ") + MOETUNE_VERSION);
    int verbosity = 0;
    bool quiet = false;
    app.add_flag("-v,--verbose", verbosity, "More log output (repeat for debug)");
    app.add_flag("-q,--quiet", quiet, "Only warnings and errors");
    app.fallthrough();  // -v/-q are accepted after the command name too

    std::vector<Command> commands = {
        add_check_command(app),
        add_merge_command(app),
        add_missing_command(app),
        add_candidates_command(app),
        add_compile_command(app),
        add_devices_command(app),
        add_sweep_command(app),
        add_measure_command(app),
        add_bench_command(app),
        add_worker_command(app),
    };

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // CLI11 uses 0 for --help/--version; every real parse error is a usage error.
        int code = app.exit(e);
        return code == 0 ? kExitOk : kExitUsage;
    }

    spdlog::set_level(quiet ? spdlog::level::warn
                            : verbosity >= 2 ? spdlog::level::trace
                            : verbosity == 1 ? spdlog::level::debug
                                             : spdlog::level::info);
    try {
        for (const Command& c : commands)
            if (c.app->parsed()) return c.run();
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return kExitFailed;
    }
    return kExitUsage;
}
