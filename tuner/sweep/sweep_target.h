#pragma once
// The devices a sweep runs on and what its rows are stamped with. A real sweep reads them from
// the GPUs (gfx: "sm_90" on NVIDIA, "gfx950" on AMD; cu_num: SM / CU count, as AITER's tuner
// stamps the running GPU). A dry run has no GPU and assumes the --arch preset's part, which
// --gfx / --cu-num can override.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sweep/plan.h"

namespace moetune::sweep {

struct SweepTarget {
    std::string arch;     // compile target: "sm_90a", "gfx950:sramecc+:xnack-"
    PlanTarget plan;      // gfx, cu_num, limits
    std::vector<int> gpus;
};

// --gpus: "all" or a comma-separated list of device indices ("0,1"), each once. Read with the
// other flags, before any device is opened; which devices exist is asked later (selected_gpus).
struct GpuSelection {
    std::vector<int> listed;  // empty: all
};
// Throws std::invalid_argument saying what is wrong with the text.
GpuSelection parse_gpu_selection(std::string_view text);
// The devices of a selection on a host with device_count of them. Throws std::invalid_argument
// naming a listed device that does not exist, or when "all" finds none.
std::vector<int> selected_gpus(const GpuSelection& selection, int device_count);

// The target of the given devices. They must agree on arch, gfx and cu_num (a row is stamped with
// one of each; mixing parts would mislabel timings), and the arch must have a limits preset
// (kernels/device_limits.h). Throws std::invalid_argument naming the mismatch, GpuError when a
// device cannot be queried.
SweepTarget device_target(const std::vector<int>& gpus);

// The gfx column value for a compile arch: "sm_90a" -> "sm_90", "gfx950:sramecc+:xnack-" -> "gfx950".
std::string table_gfx_of_arch(std::string_view arch);

// A dry run's target: the preset of `arch` (std::invalid_argument if there is none), gfx from it
// and cu_num the preset part's SM/CU count unless given.
SweepTarget dry_run_target(const std::string& arch, const std::optional<std::string>& gfx,
                           const std::optional<long long>& cu_num);

}  // namespace moetune::sweep
