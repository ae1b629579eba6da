// moetune devices [--format text|json]
// Lists the GPUs this host and build can use, with the values the tuner stamps into tables
// (gfx, cu_num) and compiles for (arch). Without a usable GPU it says why and exits kExitNoGpu.
#include <iomanip>
#include <iostream>
#include <memory>
#include <string>

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/exit_codes.h"
#include "gpu/device.h"

namespace moetune::cli {
namespace {

struct DevicesOptions {
    std::string format = "text";
};

double gib(std::size_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0); }

int run_devices(const DevicesOptions& o) {
    if (const std::string why = gpu::unavailable_reason(); !why.empty()) {
        spdlog::error("no GPU: {}", why);
        return kExitNoGpu;
    }
    nlohmann::json list = nlohmann::json::array();
    for (int d = 0; d < gpu::device_count(); ++d) {
        const gpu::DeviceInfo info = gpu::device_info(d);
        if (o.format == "json") {
            list.push_back({{"index", info.index},
                            {"name", info.name},
                            {"arch", info.arch},
                            {"gfx", info.gfx},
                            {"cu_num", info.cu_num},
                            {"memory_bytes", info.total_memory_bytes},
                            {"shared_mem_per_block_optin", info.shared_mem_per_block_optin},
                            {"registers_per_block", info.registers_per_block},
                            {"l2_bytes", info.l2_bytes}});
            continue;
        }
        std::cout << info.index << ": " << info.name << "  arch=" << info.arch << " gfx=" << info.gfx
                  << " cu_num=" << info.cu_num << " memory=" << std::fixed << std::setprecision(1)
                  << gib(info.total_memory_bytes) << " GiB shared_per_block=" << info.shared_mem_per_block_optin / 1024
                  << " KiB l2=" << info.l2_bytes / (1024 * 1024) << " MiB\n";
    }
    if (o.format == "json") std::cout << list.dump(2) << '\n';
    return kExitOk;
}

}  // namespace

Command add_devices_command(CLI::App& parent) {
    auto options = std::make_shared<DevicesOptions>();
    CLI::App* app = parent.add_subcommand("devices", "List the GPUs moetune can use (name, arch, gfx, cu_num, memory)");
    app->add_option("--format", options->format, "Output: text, or json")->check(CLI::IsMember({"text", "json"}));
    return {app, [options] { return run_devices(*options); }};
}

}  // namespace moetune::cli
