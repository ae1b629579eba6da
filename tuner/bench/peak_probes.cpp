#include "bench/peak_probes.h"

#include <cstdint>
#include <stdexcept>

#include "gpu/device.h"
#include "gpu/device_buffer.h"
#include "measure/graph_timing.h"
#include "rtc/compiler.h"

namespace moetune::bench {
namespace {

constexpr int kCopyThreads = 256;
constexpr int kCopyUnroll = 4;
constexpr int kWarpgroups = 2;  // two warpgroups an SM issue products while the other's are in flight
constexpr int kRounds = 2048;   // ~1.5 ms of products at 1.5 PFLOP/s on 132 SMs: launch gaps vanish
// 2 * 64 * 256 * 128 FLOP a round a warpgroup (peak_probes.hip).
constexpr double kFlopPerRound = 2.0 * 64 * 256 * 128;

constexpr measure::TimingOptions kTiming{
    .launches_per_graph = 4, .warmup_replays = 2, .timed_replays = 10, .replay_ms = 0};

}  // namespace

std::vector<rtc::CompileRequest> PeakProbes::requests(const std::string& arch) {
    const std::string stream_parameters = "<" + std::to_string(kCopyThreads) + ", " + std::to_string(kCopyUnroll) + ">";
    return {rtc::template_request("peak_probes.hip",
                                  {"peak_hbm_copy" + stream_parameters, "peak_hbm_read" + stream_parameters,
                                   "peak_fp8_products<" + std::to_string(kWarpgroups) + ">"},
                                  arch)};
}

bool PeakProbes::measures_fp8(const std::string& arch) { return arch == "sm_90a"; }

PeakProbes::PeakProbes(const rtc::KernelCache* cache) {
    const gpu::DeviceInfo info = gpu::device_info(gpu::current_device());
    arch_ = info.arch;
    sms_ = info.cu_num;
    for (const rtc::CompileRequest& request : requests(arch_)) {
        const rtc::CompiledCode code = rtc::compile(request, cache);
        const gpu::Module& module = modules_.emplace_back(code.code);
        for (const std::string& lowered : code.lowered_names) kernels_.push_back(module.kernel(lowered));
    }
}

HbmStreams PeakProbes::hbm_streams(const gpu::Stream& stream) const {
    constexpr std::size_t kBytes = std::size_t(1) << 30;  // far beyond the L2, so every byte is HBM traffic
    constexpr long long kWords = kBytes / 16;
    constexpr uint32_t kNever = 0xFFFFFFFFu;  // the fold of words of bytes 1 is 0 or 0x01010101
    gpu::DeviceBuffer<uint8_t> src(kBytes), dst(kBytes);
    gpu::DeviceBuffer<uint32_t> sink(1);
    src.fill_bytes(1);
    const gpu::Kernel& copy = kernels_.at(0);
    const gpu::Kernel& read = kernels_.at(1);
    const gpu::LaunchShape shape{.grid = {unsigned(sms_) * 8u, 1, 1}, .block = {kCopyThreads, 1, 1}};
    const measure::TimingStats copied = measure::time_in_graph(stream, kTiming, [&](int) {
        copy.launch(shape, stream, static_cast<const void*>(src.data()), static_cast<void*>(dst.data()), kWords);
    });
    const measure::TimingStats read_only = measure::time_in_graph(stream, kTiming, [&](int) {
        read.launch(shape, stream, static_cast<const void*>(src.data()), kWords, kNever, sink.data());
    });
    constexpr double kTbPerUs = 1e6 / 1e12;  // bytes per µs to TB/s
    return {.copy_tbps = 2.0 * kBytes / copied.us_per_launch * kTbPerUs,
            .read_tbps = double(kBytes) / read_only.us_per_launch * kTbPerUs};
}

double PeakProbes::fp8_tflops(const gpu::Stream& stream) const {
    if (!measures_fp8(arch_)) throw std::logic_error("no FP8 tensor probe for " + arch_);
    const unsigned threads = kWarpgroups * 128;
    gpu::DeviceBuffer<float> sink(std::size_t(sms_) * threads);
    const gpu::Kernel& products = kernels_.at(2);
    const gpu::LaunchShape shape{.grid = {unsigned(sms_), 1, 1}, .block = {threads, 1, 1}};
    const measure::TimingStats t = measure::time_in_graph(
        stream, kTiming, [&](int) { products.launch(shape, stream, sink.data(), kRounds); });
    const double flop = kFlopPerRound * kRounds * kWarpgroups * sms_;
    return flop / (t.us_per_launch * 1e-6) / 1e12;
}

}  // namespace moetune::bench
