#pragma once
// --mma, shared by the commands that enumerate candidates (candidates, compile, measure, sweep), so
// it is spelled and explained once.
#include <vector>

#include <CLI/CLI.hpp>

#include "kernels/kernel_config.h"

namespace moetune::cli {

// --mma fp8|bf16|all: the tensor-core paths enumerated (kernels::EnumerationOptions::mma_paths,
// left at its default, all, when the flag is absent).
void add_mma_option(CLI::App& app, std::vector<kernels::MmaPath>& paths);

}  // namespace moetune::cli
