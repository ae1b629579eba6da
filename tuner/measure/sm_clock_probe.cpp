#include "measure/sm_clock_probe.h"

#include <algorithm>
#include <cstdint>

#include "common/median.h"
#include "gpu/device.h"
#include "gpu/device_buffer.h"
#include "rtc/compiler.h"

namespace moetune::measure {
namespace {

constexpr const char* kProbe = "sm_clock_probe";

}  // namespace

rtc::CompileRequest SmClockProbe::request(const std::string& arch) {
    return rtc::template_request("sm_clock_probe.hip", {kProbe}, arch);
}

SmClockProbe::SmClockProbe(const rtc::KernelCache* cache)
    : SmClockProbe(cache, gpu::device_info(gpu::current_device())) {}

SmClockProbe::SmClockProbe(const rtc::KernelCache* cache, const gpu::DeviceInfo& device)
    : sms_(device.cu_num),
      wall_clock_khz_(device.wall_clock_khz),
      module_(rtc::compile(request(device.arch), cache).code),
      kernel_(module_.kernel(kProbe)),
      counts_(2 * std::size_t(sms_)) {}

double SmClockProbe::mhz(const gpu::Stream& stream, long long spin_cycles) const {
    kernel_.launch({.grid = {unsigned(sms_), 1, 1}, .block = {32, 1, 1}}, stream, spin_cycles, counts_.data());
    stream.synchronize();
    const std::vector<uint64_t> host = counts_.download();
    std::vector<double> per_sm;
    for (int sm = 0; sm < sms_; ++sm)
        if (host[2 * sm + 1] > 0)  // cycles per wall tick, times the ticks a microsecond
            per_sm.push_back(double(host[2 * sm]) / double(host[2 * sm + 1]) * (wall_clock_khz_ / 1000.0));
    if (per_sm.empty()) return 0;
    std::sort(per_sm.begin(), per_sm.end());
    return sorted_median(per_sm);
}

}  // namespace moetune::measure
