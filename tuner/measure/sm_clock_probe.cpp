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

std::string compiled_probe(const rtc::KernelCache* cache) {
    return rtc::compile(SmClockProbe::request(gpu::device_info(gpu::current_device()).arch), cache).code;
}

}  // namespace

rtc::CompileRequest SmClockProbe::request(const std::string& arch) {
    return rtc::template_request("sm_clock_probe.hip", {kProbe}, arch);
}

SmClockProbe::SmClockProbe(const rtc::KernelCache* cache)
    : module_(compiled_probe(cache)), kernel_(module_.kernel(kProbe)) {
    const gpu::DeviceInfo info = gpu::device_info(gpu::current_device());
    sms_ = info.cu_num;
    wall_clock_khz_ = info.wall_clock_khz;
}

double SmClockProbe::mhz(const gpu::Stream& stream, long long spin_cycles) const {
    gpu::DeviceBuffer<uint64_t> counts(2 * std::size_t(sms_));
    kernel_.launch({.grid = {unsigned(sms_), 1, 1}, .block = {32, 1, 1}}, stream, spin_cycles, counts.data());
    stream.synchronize();
    const std::vector<uint64_t> host = counts.download();
    std::vector<double> per_sm;
    for (int sm = 0; sm < sms_; ++sm)
        if (host[2 * sm + 1] > 0)  // cycles per wall tick, times the ticks a microsecond
            per_sm.push_back(double(host[2 * sm]) / double(host[2 * sm + 1]) * (wall_clock_khz_ / 1000.0));
    if (per_sm.empty()) return 0;
    std::sort(per_sm.begin(), per_sm.end());
    return sorted_median(per_sm);
}

}  // namespace moetune::measure
