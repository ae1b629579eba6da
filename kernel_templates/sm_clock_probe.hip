// The SM clock the kernels run at, as they see it (tuner/measure/sm_clock_probe.h): the cycle counter against the
// device's constant-rate wall clock. nvidia-smi's 50 ms samples of an H100 said 1980 MHz throughout while repeats of
// one compute-bound kernel sat on levels 0.76 % apart, the card's 15 MHz clock steps (docs/benchmarks.md, session 61).
#include "common/host_device.h"

// The wall clock: %globaltimer counts nanoseconds on NVIDIA; HIP's wall_clock64 a constant rate the host knows
// (gpu::DeviceInfo::wall_clock_khz).
__device__ inline moetune_u64 sm_clock_probe_wall_ticks() {
#if defined(__CUDA_ARCH__)
    moetune_u64 ticks;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ticks));
    return ticks;
#else
    return moetune_u64(wall_clock64());
#endif
}

// The first thread of each workgroup (one a SM) spins until its SM's counter has advanced `cycles`, reading the
// wall clock before and after: out[2 * workgroup] = the cycles counted, out[2 * workgroup + 1] = the wall ticks.
extern "C" __global__ void sm_clock_probe(long long cycles, moetune_u64* out) {
    if (threadIdx.x != 0) return;
    const moetune_u64 wall_start = sm_clock_probe_wall_ticks();
    const long long start = clock64();
    long long now = start;
    while (now - start < cycles) now = clock64();
    const moetune_u64 wall_end = sm_clock_probe_wall_ticks();
    out[2 * blockIdx.x] = moetune_u64(now - start);
    out[2 * blockIdx.x + 1] = wall_end - wall_start;
}
