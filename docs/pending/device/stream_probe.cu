// Experiment (not project code): how fast can the one-token stage 1's grid shape stream its weights
// with nothing but loads? 61 MB over 360 workgroups of 4 warps (each warp two 8-row tiles, 512 bytes a
// tile and chunk, 40 chunks), the register-fed loop's access pattern, with U chunks of loads in flight a
// lane (unrolled, consumed by an XOR so nothing is dead). Also other grid shapes over the same bytes.
// Since session 55 also the loads with L2 asked for the chunks ahead (probe<4, D>).
// nvcc -O3 -std=c++17 -arch=sm_90a -o stream_probe stream_probe.cu && ./stream_probe
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include <type_traits>

// D > 0 (session 55): lanes 0 and 1 of each warp also ask L2 for the lo and hi tiles' chunks D ahead of
// those the warp loads (cp.async.bulk.prefetch.L2, U chunks of 512 bytes at a time; the first D at the
// start): the DRAM stream driven by the copy engine's prefetches, the loads hitting L2.
template <int U, int D = 0>
__global__ void probe(const uint4* __restrict__ w, int chunks, long long tile_stride_vec, unsigned* out) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const long long tile = (long long)blockIdx.x * (blockDim.x / 32) * 2 + warp * 2;  // lo, hi = tile, tile + 1
    const uint4* lo = w + tile * tile_stride_vec + lane;
    const uint4* hi = lo + tile_stride_vec;
    const uint4* asker = lane == 0 ? lo : hi - 1;  // a tile's chunk start: lane 0's vector of lo, lane 1's of hi less one
    auto ask = [&](int c, int n) {
        if (D > 0 && lane < 2 && c < chunks)
            asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(asker + c * 32), "r"(min(n, chunks - c) * 512)
                         : "memory");
    };
    ask(0, D);
    unsigned acc = 0;
    for (int c0 = 0; c0 < chunks; c0 += U) {
        uint4 a[U], b[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int c = min(c0 + u, chunks - 1);
            asm volatile("ld.global.cs.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(a[u].x), "=r"(a[u].y), "=r"(a[u].z), "=r"(a[u].w) : "l"(lo + c * 32));
            asm volatile("ld.global.cs.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(b[u].x), "=r"(b[u].y), "=r"(b[u].z), "=r"(b[u].w) : "l"(hi + c * 32));
        }
        ask(c0 + D, U);
#pragma unroll
        for (int u = 0; u < U; ++u) acc ^= a[u].x ^ a[u].y ^ a[u].z ^ a[u].w ^ b[u].x ^ b[u].y ^ b[u].z ^ b[u].w;
    }
    if (acc == 0x12345678u) out[0] = acc;
}

// The same stream through a ring of bulk copies (what a register-fed loop could do instead of loads
// into registers): per warp R slots of G chunks of both tiles (2 * G * 512 bytes), lane 0 issuing one
// bulk copy a tile and slot on the slot's mbarrier, every lane reading its 16 bytes a chunk and tile
// from shared memory once the slot has landed. Bytes in flight without registers.
__device__ inline unsigned smem_addr(const void* p) { return unsigned(__cvta_generic_to_shared(p)); }
template <int R, int G>
__global__ void probe_tma(const uint4* __restrict__ w, int chunks, long long tile_stride_vec, unsigned* out) {
    extern __shared__ __align__(128) unsigned char ring[];
    __shared__ __align__(8) unsigned long long bar[32][R];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const long long tile = (long long)blockIdx.x * (blockDim.x / 32) * 2 + warp * 2;
    const uint4* lo = w + tile * tile_stride_vec;
    const uint4* hi = lo + tile_stride_vec;
    unsigned char* mine = ring + warp * R * 2 * G * 512;
    const int groups = (chunks + G - 1) / G;
    auto issue = [&](int grp) {  // lane 0
        const int s = grp % R, first = grp * G, n = min(G, chunks - first);
        const unsigned b = smem_addr(&bar[warp][s]);
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(2 * n * 512) : "memory");
        unsigned char* slot = mine + s * 2 * G * 512;
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                     ::"r"(smem_addr(slot)), "l"(lo + first * 32), "r"(n * 512), "r"(b) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                     ::"r"(smem_addr(slot + G * 512)), "l"(hi + first * 32), "r"(n * 512), "r"(b) : "memory");
    };
    if (lane == 0) {
        for (int s = 0; s < R; ++s) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bar[warp][s])));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        for (int g = 0; g < R && g < groups; ++g) issue(g);
    }
    __syncwarp();
    unsigned acc = 0;
    for (int grp = 0; grp < groups; ++grp) {
        const int s = grp % R, n = min(G, chunks - grp * G);
        const unsigned b = smem_addr(&bar[warp][s]);
        const unsigned parity = (grp / R) & 1;
        asm volatile("{\n.reg .pred p;\nwait_%=:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra wait_%=;\n}"
                     ::"r"(b), "r"(parity) : "memory");
        const unsigned char* slot = mine + s * 2 * G * 512;
#pragma unroll
        for (int c = 0; c < G; ++c) {
            if (c < n) {
                const uint4 a = *reinterpret_cast<const uint4*>(slot + c * 512 + lane * 16);
                const uint4 d = *reinterpret_cast<const uint4*>(slot + G * 512 + c * 512 + lane * 16);
                acc ^= a.x ^ a.y ^ a.z ^ a.w ^ d.x ^ d.y ^ d.z ^ d.w;
            }
        }
        __syncwarp();
        if (lane == 0 && grp + R < groups) issue(grp + R);
    }
    if (acc == 0x12345678u) out[0] = acc;
}

// Median over 20 rounds (after 5) of 10 back-to-back launches, each on another window of the buffer (so
// nothing is in L2 from the launch before), per launch.
template <class Launch>
float time_it(Launch launch, const uint4* w, long long total_vec, long long window_vec) {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::vector<float> ms;
    long long at = 0;
    for (int r = 0; r < 25; ++r) {
        cudaEventRecord(a);
        for (int l = 0; l < 10; ++l) {
            if (at + window_vec > total_vec) at = 0;
            launch(w + at);
            at += window_vec;
        }
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float t;
        cudaEventElapsedTime(&t, a, b);
        if (r >= 5) ms.push_back(t / 10);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

int main() {
    // Weights of 96 experts' worth, far beyond L2; each launch reads a different 61 MB window.
    const long long total = 2LL << 30;
    uint4* w;
    unsigned* out;
    cudaMalloc(&w, total);
    cudaMalloc(&out, 4);
    cudaMemset(w, 1, total);
    struct Shape { int blocks, warps, chunks; };
    // 360 x 4 warps x 40 chunks = the 1-token stage 1 (t16x64x512_w4); then the same bytes as 720 x 4 x 20,
    // 180 x 8 x 40, 132 x 16 x ~27, 1440 x 4 x 10; 360 x 8 x 20 (session 55): the warps of 720 x 4 x 20 in the
    // 360 workgroups of the one-token grid, as two K-groups a workgroup would stream them. Session 58: grids of
    // exactly 3 and 4 workgroups an SM (132 SMs) over ~the same bytes, whether the one-token grid's 2-or-3 an SM
    // costs its tail; and the 360- and 1440-workgroup grids over 2x and 4x the bytes, whose line through the
    // times splits a launch into a fixed cost and a rate (what one token's ~90 MB of weights can reach at best).
    const Shape shapes[] = {{360, 4, 40},  {720, 4, 20},  {180, 8, 40},  {1440, 4, 10}, {200, 8, 18},
                            {360, 8, 20},  {396, 4, 36},  {528, 4, 27},  {360, 4, 80},  {360, 4, 160},
                            {1440, 4, 20}, {1440, 4, 40}};
    for (const Shape& s : shapes) {
        const long long stride = (long long)s.chunks * 32;  // uint4s from one 8-row tile to the next
        const double bytes = double(s.blocks) * s.warps * 2 * s.chunks * 512;
        const long long window = (long long)(bytes / 16) + 4096;
        auto loads = [&](auto u) {
            constexpr int U = decltype(u)::value;
            return time_it([&](const uint4* p) { probe<U><<<s.blocks, s.warps * 32>>>(p, s.chunks, stride, out); }, w,
                           total / 16, window);
        };
        auto ring = [&](auto r, auto g) {
            constexpr int R = decltype(r)::value, G = decltype(g)::value;
            const int smem = s.warps * R * 2 * G * 512;
            cudaFuncSetAttribute(probe_tma<R, G>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
            const float t = time_it([&](const uint4* p) { probe_tma<R, G><<<s.blocks, s.warps * 32, smem>>>(p, s.chunks, stride, out); },
                                    w, total / 16, window);
            const cudaError_t e = cudaGetLastError();
            return e == cudaSuccess ? t : -1.f;
        };
        using std::integral_constant;
        const float t1 = loads(integral_constant<int, 1>{}), t2 = loads(integral_constant<int, 2>{}),
                    t4 = loads(integral_constant<int, 4>{}), t8 = loads(integral_constant<int, 8>{});
        const float r24 = ring(integral_constant<int, 2>{}, integral_constant<int, 4>{}),
                    r34 = ring(integral_constant<int, 3>{}, integral_constant<int, 4>{}),
                    r42 = ring(integral_constant<int, 4>{}, integral_constant<int, 2>{}),
                    r28 = ring(integral_constant<int, 2>{}, integral_constant<int, 8>{});
        auto prefetched = [&](auto d) {
            constexpr int D = decltype(d)::value;
            return time_it([&](const uint4* p) { probe<4, D><<<s.blocks, s.warps * 32>>>(p, s.chunks, stride, out); }, w,
                           total / 16, window);
        };
        const float p4 = prefetched(integral_constant<int, 4>{}), p8 = prefetched(integral_constant<int, 8>{}),
                    p16 = prefetched(integral_constant<int, 16>{}), pall = prefetched(integral_constant<int, 64>{});
        auto tbps = [&](float t) { return t > 0 ? bytes / t / 1e9 : 0.0; };
        std::printf("%4d x %2d warps x %2d chunks (%.1f MB), TB/s: loads U=1 %.2f U=2 %.2f U=4 %.2f U=8 %.2f | "
                    "bulk ring R2G4 %.2f R3G4 %.2f R4G2 %.2f R2G8 %.2f | L2 asked ahead D=4 %.2f D=8 %.2f D=16 %.2f all %.2f "
                    "(us at U=4: %.1f)\n",
                    s.blocks, s.warps, s.chunks, bytes / 1e6, tbps(t1), tbps(t2), tbps(t4), tbps(t8), tbps(r24), tbps(r34),
                    tbps(r42), tbps(r28), tbps(p4), tbps(p8), tbps(p16), tbps(pall), t4 * 1e3);
    }
    return 0;
}
