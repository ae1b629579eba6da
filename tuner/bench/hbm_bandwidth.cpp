#include "bench/hbm_bandwidth.h"

#include <cstdint>

#include "gpu/device_buffer.h"
#include "gpu/memory_copy.h"
#include "measure/graph_timing.h"

namespace moetune::bench {

double measure_copy_tbps(const gpu::Stream& stream) {
    constexpr std::size_t kBytes = std::size_t(1) << 30;  // far beyond the L2, so every byte is HBM traffic
    gpu::DeviceBuffer<uint8_t> src(kBytes), dst(kBytes);
    src.fill_bytes(1);
    const measure::TimingOptions timing{.launches_per_graph = 4, .warmup_replays = 2, .timed_replays = 10,
                                        .replay_ms = 0};
    const measure::TimingStats t = measure::time_in_graph(
        stream, timing, [&](int) { gpu::copy_device_async(dst.data(), src.data(), kBytes, stream); });
    return 2.0 * kBytes / (t.us_per_launch * 1e-6) / 1e12;
}

}  // namespace moetune::bench
