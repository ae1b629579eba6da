// The HIP layer on a real GPU: device info, buffers, module load and launch of an NVRTC/hipRTC
// kernel (including the >48 KB dynamic shared memory opt-in), launches that overlap the previous
// kernel (programmatic dependent launch), events and graph replays.
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "gpu/device.h"
#include "gpu/device_buffer.h"
#include "gpu/event.h"
#include "gpu/gpu_error.h"
#include "gpu/graph.h"
#include "gpu/module.h"
#include "gpu/stream.h"
#include "rtc/compiler.h"
#include "support/catch.hpp"
#include "support/thrown_message.h"

using namespace moetune;
using moetune::test::contains;
using moetune::test::thrown_message;

namespace {

// Small kernels, compiled once for the test device.
const rtc::CompiledCode& test_kernels() {
    static const rtc::CompiledCode code = [] {
        rtc::CompileRequest r;
        r.source_name = "gpu_layer_test.hip";
        r.source = R"(
#include "common/grid_dependency.h"
// A device clock in nanoseconds that every SM shares (0 where there is none to read).
__device__ unsigned long long shared_clock_ns() {
#if defined(__CUDA_ARCH__)
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
#else
    return 0;
#endif
}
// y = x + 1 after `spin` cycles, so that a kernel launched to overlap this one starts first where
// it can; lets the next kernel start at once; times[1] = when the last block finished.
__global__ void late_increment(const int* x, int* y, int n, long long spin, unsigned long long* times) {
    mx_allow_next_grid();
    const long long t0 = clock64();
    while (clock64() - t0 < spin) {
    }
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = x[i] + 1;
    __syncthreads();
    if (threadIdx.x == 0) atomicMax(&times[1], shared_clock_ns());
}
// z = y once the previous kernel is complete; times[0] = when the first block started.
__global__ void copy_after_previous(const int* y, int* z, int n, unsigned long long* times) {
    if (threadIdx.x == 0) atomicMin(&times[0], shared_clock_ns());
    mx_wait_for_previous_grid();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) z[i] = y[i];
}
template <typename T>
__global__ void axpy(T a, const T* x, T* y, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}
// Reverses x through dynamic shared memory of n floats.
__global__ void reverse_through_shared(const float* x, float* y, int n) {
    extern __shared__ float s[];
    for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = x[i];
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) y[i] = s[n - 1 - i];
}
)";
        r.name_expressions = {"axpy<float>", "axpy<int>", "reverse_through_shared", "late_increment",
                              "copy_after_previous"};
        r.arch = gpu::device_info(gpu::current_device()).arch;
        return rtc::compile(r);
    }();
    return code;
}

}  // namespace

TEST_CASE("device info describes a real GPU", "[gpu]") {
    REQUIRE(gpu::unavailable_reason().empty());
    REQUIRE(gpu::device_count() >= 1);
    const gpu::DeviceInfo info = gpu::device_info(0);
    std::printf("device 0: %s arch=%s gfx=%s cu_num=%d memory=%zu shared_optin=%zu regs=%d l2=%zu\n", info.name.c_str(),
                info.arch.c_str(), info.gfx.c_str(), info.cu_num, info.total_memory_bytes,
                info.shared_mem_per_block_optin, info.registers_per_block, info.l2_bytes);
    CHECK_FALSE(info.name.empty());
    CHECK(info.arch.starts_with(info.gfx));
    CHECK((info.gfx.starts_with("sm_") || info.gfx.starts_with("gfx")));
    if (info.gfx == "sm_90") CHECK(info.arch == "sm_90a");
    CHECK(info.cu_num > 0);
    CHECK(info.total_memory_bytes > (std::size_t(1) << 30));
    CHECK(info.shared_mem_per_block_optin >= 48 * 1024);
    CHECK(info.registers_per_block > 0);
    CHECK(info.l2_bytes > 0);
    CHECK(contains(thrown_message([] { gpu::device_info(gpu::device_count()); }), "hipGetDeviceProperties"));
}

TEST_CASE("device buffers round-trip, fill and reject out-of-range copies", "[gpu]") {
    std::vector<int> host(1000);
    std::iota(host.begin(), host.end(), -500);
    gpu::DeviceBuffer<int> buf{std::span<const int>(host)};
    CHECK(buf.size() == 1000);
    CHECK(buf.bytes() == 4000);
    CHECK(buf.download() == host);

    const std::vector<int> patch = {7, 8, 9};
    buf.upload(patch, 10);
    CHECK(buf.download(9, 5) == std::vector<int>{-491, 7, 8, 9, -487});

    buf.fill_bytes(0xFF);
    CHECK(buf.download() == std::vector<int>(1000, -1));

    CHECK_THROWS_AS(buf.upload(patch, 998), std::out_of_range);
    CHECK_THROWS_AS(buf.download(999, 2), std::out_of_range);

    gpu::DeviceBuffer<int> moved = std::move(buf);
    CHECK(moved.size() == 1000);
    CHECK(moved.download(0, 1) == std::vector<int>{-1});

    const gpu::DeviceBuffer<float> empty(0);
    CHECK(empty.download().empty());
}

TEST_CASE("a runtime-compiled kernel loads and launches", "[gpu]") {
    const rtc::CompiledCode& code = test_kernels();
    const gpu::Module module(code.code);
    const gpu::Stream stream;

    const int n = 1000;
    std::vector<float> x(n), y(n, 1.0f);
    std::iota(x.begin(), x.end(), 0.0f);
    gpu::DeviceBuffer<float> dx{std::span<const float>(x)}, dy{std::span<const float>(y)};
    module.kernel(code.lowered_names[0]).launch({{(n + 255) / 256}, {256}}, stream, 2.0f, dx.data(), dy.data(), n);
    stream.synchronize();
    const auto out = dy.download();
    for (int i = 0; i < n; i += 97) CHECK(out[i] == 1.0f + 2.0f * i);

    gpu::DeviceBuffer<int> ix(std::vector<int>{1, 2, 3}), iy(std::vector<int>{10, 20, 30});
    module.kernel(code.lowered_names[1]).launch({{1}, {32}}, stream, 3, ix.data(), iy.data(), 3);
    stream.synchronize();
    CHECK(iy.download() == std::vector<int>{13, 26, 39});

    CHECK(contains(thrown_message([&] { module.kernel("no_such_kernel"); }), "no_such_kernel"));
    // 4096 threads per block is beyond every GPU: the launch error names the kernel.
    CHECK(
        contains(thrown_message([&] {
                     module.kernel(code.lowered_names[0]).launch({{1}, {4096}}, stream, 2.0f, dx.data(), dy.data(), n);
                 }),
                 code.lowered_names[0]));
}

TEST_CASE("a launch may use more than 48 KB of dynamic shared memory", "[gpu]") {
    const rtc::CompiledCode& code = test_kernels();
    const gpu::Module module(code.code);
    const gpu::Stream stream;
    const std::size_t optin = gpu::device_info(gpu::current_device()).shared_mem_per_block_optin;
    const int n = static_cast<int>(std::min<std::size_t>(optin, 96 * 1024) / sizeof(float));
    std::vector<float> x(n);
    std::iota(x.begin(), x.end(), 0.0f);
    gpu::DeviceBuffer<float> dx{std::span<const float>(x)}, dy(n);
    module.kernel(code.lowered_names[2]).launch({{1}, {256}, n * sizeof(float)}, stream, dx.data(), dy.data(), n);
    stream.synchronize();
    const auto out = dy.download();
    CHECK(out.front() == float(n - 1));
    CHECK(out.back() == 0.0f);
}

// What a persistent grid is sized by (kernels::launch_geometry's resident workgroups): small
// workgroups share an SM; one that takes more than half the opt-in shared memory has one to itself.
TEST_CASE("the occupancy calculator counts the workgroups an SM holds", "[gpu]") {
    const rtc::CompiledCode& code = test_kernels();
    const gpu::Module module(code.code);
    const gpu::Kernel kernel = module.kernel(code.lowered_names[2]);
    const std::size_t optin = gpu::device_info(gpu::current_device()).shared_mem_per_block_optin;
    CHECK(kernel.resident_workgroups_per_sm(256, 1024) >= 2);
    CHECK(kernel.resident_workgroups_per_sm(256, optin / 2 + 4096) == 1);
    CHECK(kernel.resident_workgroups_per_sm(256, optin) == 1);
}

TEST_CASE("a captured graph replays its work and events time the replays", "[gpu]") {
    const rtc::CompiledCode& code = test_kernels();
    const gpu::Module module(code.code);
    const gpu::Kernel axpy = module.kernel(code.lowered_names[1]);
    const gpu::Stream stream;
    const int n = 4096;
    gpu::DeviceBuffer<int> ones(std::vector<int>(n, 1)), counter(n), scratch(n);
    counter.fill_bytes(0);
    scratch.fill_bytes(0x11);

    const gpu::Graph graph = gpu::Graph::capture(stream, [&] {
        scratch.fill_bytes_async(0, stream);
        axpy.launch({{n / 256}, {256}}, stream, 1, ones.data(), counter.data(), n);
    });
    // Capturing executes nothing.
    stream.synchronize();
    CHECK(counter.download(0, 1) == std::vector<int>{0});
    CHECK(scratch.download(0, 1) == std::vector<int>{0x11111111});

    constexpr int kReplays = 200;
    gpu::Event start, stop;
    start.record(stream);
    graph.replay(stream, kReplays);
    stop.record(stream);
    const float ms = gpu::Event::elapsed_ms(start, stop);
    std::printf("graph replay: %.2f us per replay (%d replays)\n", 1000.0 * ms / kReplays, kReplays);
    CHECK(ms > 0.0f);
    CHECK(counter.download() == std::vector<int>(n, kReplays));
    CHECK(scratch.download(0, 1) == std::vector<int>{0});
}

TEST_CASE("a launch that overlaps the previous kernel waits for it where the kernel asks", "[gpu]") {
    const rtc::CompiledCode& code = test_kernels();
    const gpu::Module module(code.code);
    const gpu::Kernel producer = module.kernel(code.lowered_names[3]);
    const gpu::Kernel consumer = module.kernel(code.lowered_names[4]);
    const gpu::DeviceInfo info = gpu::device_info(gpu::current_device());
    // Programmatic dependent launch exists from sm_90; elsewhere overlap_previous is an ordinary launch.
    const bool overlaps = info.gfx.starts_with("sm_") && std::stoi(info.gfx.substr(3)) >= 90;
    const gpu::Stream stream;
    const int n = 1 << 16;
    std::vector<int> x(n);
    std::iota(x.begin(), x.end(), -7);
    std::vector<int> expected(x);
    for (int& v : expected) v += 1;
    gpu::DeviceBuffer<int> dx{std::span<const int>(x)}, dy(n), dz(n);
    gpu::DeviceBuffer<unsigned long long> times(2);
    const long long spin = 200000;  // ~100 us at H200 clocks: far longer than a launch

    const auto enqueue = [&] {
        producer.launch({{8}, {256}}, stream, dx.data(), dy.data(), n, spin, times.data());
        consumer.launch({{8}, {256}, 0, true}, stream, dy.data(), dz.data(), n, times.data());
    };
    // Lazy module loading loads a kernel at its first launch: on the H200 the first overlapped launch
    // of a fresh module started 4 us after its producer had finished, while the graph (loaded when
    // instantiated) overlapped by ~100 us. So both are launched once before anything is checked.
    enqueue();
    stream.synchronize();
    const auto run_and_check = [&](const auto& run) {
        dy.fill_bytes(0);
        dz.fill_bytes(0);
        const std::vector<unsigned long long> unset = {~0ULL, 0};  // earliest start, latest end
        times.upload(unset);
        run();
        stream.synchronize();
        CHECK(dz.download() == expected);
        const auto t = times.download();
        std::printf("overlapped launch: consumer started %.1f us %s the producer finished\n",
                    std::abs(double(t[1]) - double(t[0])) / 1000.0, t[0] < t[1] ? "before" : "after");
        if (overlaps) CHECK(t[0] < t[1]);
    };
    SECTION("on a stream") { run_and_check(enqueue); }
    SECTION("captured in a graph and replayed") {
        const gpu::Graph graph = gpu::Graph::capture(stream, enqueue);
        run_and_check([&] { graph.replay(stream, 1); });
    }
}
