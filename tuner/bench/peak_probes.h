#pragma once
// The device's ceilings for the roofline of `moetune bench --hbm-tbps 0 --peak-tflops 0`, measured at
// start by kernel_templates/peak_probes.hip: HBM bandwidth as the faster of a 1 GiB copy by SM kernels (the
// way performance-anchors.md measured 4.27 TB/s on the H200; the runtime's memcpy runs on the copy engines
// there and reads 2.77) and a read-only stream of the same buffer (the MoE mostly reads: on an H100 it read
// 2.84 TB/s where the copy moved 2.80 and the stream 3.08), and the dense FP8 tensor rate as e4m3 warpgroup
// products on operands in shared memory (sm_90a; there is no FP8 probe for other targets). Each is the median of
// timed graph replays.
#include <string>
#include <vector>

#include "gpu/module.h"
#include "gpu/stream.h"
#include "rtc/compile_request.h"
#include "rtc/kernel_cache.h"

namespace moetune::bench {

// Both HBM streams, TB/s (1e12 bytes/s): bench reports each so a reader sees which one set the ceiling.
struct HbmStreams {
    double copy_tbps = 0;  // bytes read + written per second by the 1 GiB copy
    double read_tbps = 0;  // bytes read per second by the read-only stream of the same buffer
    double ceiling() const { return copy_tbps > read_tbps ? copy_tbps : read_tbps; }
};

class PeakProbes {
public:
    // What gets compiled for `arch`; needs no GPU.
    static std::vector<rtc::CompileRequest> requests(const std::string& arch);
    // Whether fp8_tflops can run on `arch`: the probe multiplies with Hopper's warpgroup products.
    static bool measures_fp8(const std::string& arch);

    // Compiles (through `cache` when not null) for the current device and loads.
    explicit PeakProbes(const rtc::KernelCache* cache);

    // The copy's and the read stream's rates; the roofline takes their ceiling().
    HbmStreams hbm_streams(const gpu::Stream& stream) const;
    // Dense e4m3 TFLOP/s of every SM multiplying. Throws std::logic_error where !measures_fp8.
    double fp8_tflops(const gpu::Stream& stream) const;

private:
    std::string arch_;
    int sms_ = 0;
    std::vector<gpu::Module> modules_;
    std::vector<gpu::Kernel> kernels_;  // the copy, the read stream, the products
};

}  // namespace moetune::bench
