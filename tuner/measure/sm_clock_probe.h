#pragma once
// The SM clock the kernels run at, measured on the device (kernel_templates/sm_clock_probe.hip): every SM spins a
// fixed number of its clock's cycles and counts the device's wall-clock ticks meanwhile. nvidia-smi's samples can
// say 1980 MHz while a kernel runs a few 15 MHz steps slower (an H100, docs/benchmarks.md session 61); a timing
// read beside this probe says at which clock it was taken.
#include <cstdint>
#include <string>

#include "gpu/device.h"
#include "gpu/device_buffer.h"
#include "gpu/module.h"
#include "gpu/stream.h"
#include "rtc/compile_request.h"
#include "rtc/kernel_cache.h"

namespace moetune::measure {

class SmClockProbe {
public:
    // What gets compiled for `arch`; needs no GPU.
    static rtc::CompileRequest request(const std::string& arch);

    // Compiles (through `cache` when not null) for the current device and loads.
    explicit SmClockProbe(const rtc::KernelCache* cache);

    // The median over the SMs of cycles counted per microsecond of wall clock, MHz, while each spins
    // `spin_cycles` (the default: ~1 ms at 2 GHz, so the wall clock's granularity stays below 0.1 %). Waits for
    // the stream's earlier work, then for the probe. 0 where the kernels can read no wall clock.
    double mhz(const gpu::Stream& stream, long long spin_cycles = 2'000'000) const;

private:
    SmClockProbe(const rtc::KernelCache* cache, const gpu::DeviceInfo& device);  // one device query, not two
    int sms_ = 0;
    int wall_clock_khz_ = 0;
    gpu::Module module_;
    gpu::Kernel kernel_;
    gpu::DeviceBuffer<uint64_t> counts_;  // the probe's output, allocated once: it runs twice a candidate
};

}  // namespace moetune::measure
