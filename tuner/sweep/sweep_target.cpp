#include "sweep/sweep_target.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <stdexcept>

#include "gpu/device.h"
#include "kernels/device_limits.h"
#include "measure/device_kernel_limits.h"

namespace moetune::sweep {
namespace {

std::string join(const std::vector<std::string>& items) {
    std::string text;
    for (const std::string& s : items) text += (text.empty() ? "" : ", ") + s;
    return text;
}

// The preset for a device, with the device's own counts where it reports them.
kernels::DeviceLimits limits_of(const gpu::DeviceInfo& d) {
    const std::optional<kernels::DeviceLimits> limits = measure::device_kernel_limits(d);
    if (!limits)
        throw std::invalid_argument("GPU " + std::to_string(d.index) + " (" + d.name + ", " + d.arch +
                                    ") has no device-limits preset; moetune knows " + join(kernels::known_archs()));
    return *limits;
}

}  // namespace

GpuSelection parse_gpu_selection(std::string_view text) {
    GpuSelection selection;
    if (text == "all") return selection;
    while (true) {
        const std::size_t comma = text.find(',');
        const std::string_view item = text.substr(0, comma);
        int index = -1;
        const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), index);
        if (item.empty() || ec != std::errc{} || end != item.data() + item.size() || index < 0)
            throw std::invalid_argument("'" + std::string(item) + "' is not a GPU index (expected all or a list like 0,1)");
        if (std::find(selection.listed.begin(), selection.listed.end(), index) != selection.listed.end())
            throw std::invalid_argument("GPU " + std::to_string(index) + " is listed twice");
        selection.listed.push_back(index);
        if (comma == std::string_view::npos) break;
        text.remove_prefix(comma + 1);
    }
    return selection;
}

std::vector<int> selected_gpus(const GpuSelection& selection, int device_count) {
    if (selection.listed.empty()) {
        if (device_count <= 0) throw std::invalid_argument("no GPU device found");
        std::vector<int> all(static_cast<std::size_t>(device_count));
        for (int d = 0; d < device_count; ++d) all[static_cast<std::size_t>(d)] = d;
        return all;
    }
    for (const int index : selection.listed)
        if (index >= device_count)
            throw std::invalid_argument("GPU " + std::to_string(index) + " does not exist (this host has " +
                                        std::to_string(device_count) + ": 0.." + std::to_string(device_count - 1) + ")");
    return selection.listed;
}

SweepTarget device_target(const std::vector<int>& gpus) {
    if (gpus.empty()) throw std::invalid_argument("no GPU selected");
    const gpu::DeviceInfo first = gpu::device_info(gpus.front());
    for (std::size_t i = 1; i < gpus.size(); ++i) {
        const gpu::DeviceInfo d = gpu::device_info(gpus[i]);
        if (d.arch != first.arch || d.gfx != first.gfx || d.cu_num != first.cu_num)
            throw std::invalid_argument("GPU " + std::to_string(d.index) + " (" + d.name + ", " + d.gfx + ", cu_num " +
                                        std::to_string(d.cu_num) + ") differs from GPU " + std::to_string(first.index) +
                                        " (" + first.name + ", " + first.gfx + ", cu_num " +
                                        std::to_string(first.cu_num) +
                                        "): a table row is stamped with one gfx and cu_num; pick one kind with --gpus");
    }
    SweepTarget t;
    t.arch = first.arch;
    t.plan.gfx = first.gfx;
    t.plan.cu_num = first.cu_num;
    t.plan.limits = limits_of(first);
    t.gpus = gpus;
    return t;
}

std::string table_gfx_of_arch(std::string_view arch) {
    arch = arch.substr(0, arch.find(':'));
    if (arch.substr(0, 3) == "sm_") {  // drop the feature-set letter: sm_90a -> sm_90
        std::size_t end = 3;
        while (end < arch.size() && std::isdigit(static_cast<unsigned char>(arch[end]))) ++end;
        arch = arch.substr(0, end);
    }
    return std::string(arch);
}

SweepTarget dry_run_target(const std::string& arch, const std::optional<std::string>& gfx,
                           const std::optional<long long>& cu_num) {
    const std::optional<kernels::DeviceLimits> limits = kernels::device_limits_for_arch(arch);
    if (!limits)
        throw std::invalid_argument("no device-limits preset for --arch " + arch + "; moetune knows " +
                                    join(kernels::known_archs()));
    SweepTarget t;
    t.arch = arch;
    t.plan.gfx = gfx.value_or(table_gfx_of_arch(arch));
    t.plan.cu_num = cu_num.value_or(limits->multiprocessors);
    t.plan.limits = *limits;
    return t;
}

}  // namespace moetune::sweep
