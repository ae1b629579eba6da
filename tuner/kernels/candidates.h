#pragma once
// Candidate enumeration: the search space of each stage, pruned statically for one shape at one
// token count before anything is compiled. Every pruned config keeps its reason (`candidates -v`).
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "data/moe_problem.h"
#include "kernels/device_limits.h"
#include "kernels/kernel_config.h"

namespace moetune::kernels {

struct EnumerationOptions {
    // Apply shape_heuristics.h's block_m and K-group prunes; off keeps every config that can run.
    bool heuristics = true;
    // The tensor-core paths tried (--mma). Each one is a whole copy of the space; both stay in by
    // default because each wins somewhere on the H200 (docs/kernel-design.md): bf16 with 16-row
    // tiles at few tokens, FP8 with 128-row tiles at many.
    std::vector<MmaPath> mma_paths = {MmaPath::fp8, MmaPath::bf16};
    // --kernels: when set, only the configs whose kernel name it matches (std::regex_search); the
    // others are pruned with that reason, after the static checks.
    std::optional<std::regex> names;
};

// EnumerationOptions::names from --kernels' text: none for an empty pattern. Throws
// std::regex_error when it is not an (ECMAScript) regular expression.
std::optional<std::regex> name_filter(const std::string& pattern);

// --mma's values: "fp8", "bf16", "all" (fp8 then bf16); nullopt for anything else.
std::optional<std::vector<MmaPath>> mma_paths_from_choice(std::string_view choice);

// The reason of the configs --kernels dropped (after they passed every other check).
inline constexpr std::string_view kNotMatchingKernels = "its name does not match --kernels";

struct PrunedConfig {
    KernelConfig config;
    std::string reason;
};

struct CandidateList {
    std::vector<KernelConfig> kept;  // in search-space order
    std::vector<PrunedConfig> pruned;
};

// Every config moetune tries for a stage, before pruning (see candidates.cpp for the choice): the
// whole space once per MMA path, in the order given.
std::vector<KernelConfig> search_space(Stage stage, const std::vector<MmaPath>& mma_paths = EnumerationOptions{}.mma_paths);

// The search space of `stage` for `shape` (shape.tokens = token count) on `limits`: hard static
// checks first (static_checks.h), then the block_m and K-group heuristics when enabled.
// Throws std::invalid_argument when shape_error(shape) is set.
CandidateList enumerate_candidates(Stage stage, const data::MoeShape& shape, const DeviceLimits& limits,
                                   const EnumerationOptions& options = {});

// Why `list` (of `stage`, for a shape on `arch`) kept nothing, for candidates' and sweep's
// messages: "--kernels matches none of the 135 stage-2 kernels that fit this shape on sm_90a" when
// only the name filter stood in the way, else "no stage-2 kernel fits this shape on sm_90a".
std::string empty_list_reason(Stage stage, const CandidateList& list, std::string_view arch);

}  // namespace moetune::kernels
