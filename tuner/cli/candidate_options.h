#pragma once
// --mma and --kernels, shared by the commands that enumerate candidates (candidates, compile,
// measure, sweep), so they are spelled and explained once.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "kernels/kernel_config.h"

namespace moetune::cli {

// --mma fp8|bf16|all: the tensor-core paths enumerated (kernels::EnumerationOptions::mma_paths,
// left at its default, all, when the flag is absent).
void add_mma_option(CLI::App& app, std::vector<kernels::MmaPath>& paths);

// --kernels REGEX: only the candidates whose name it matches (kernels::name_filter builds
// EnumerationOptions::names from `pattern`; a pattern that is not a regular expression is a usage
// error at parse time).
void add_kernels_option(CLI::App& app, std::string& pattern);

}  // namespace moetune::cli
