// The pieces of gemv_probe.cu that fused_probe.cu shares: the weights' layouts and their FP4 decodes, the
// per-warp tile loop (tile_share), the stage kernels, the host reference read through the PTX fragment tables,
// and graph timing. Not project code (docs/pending item 29, 32).
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
            std::exit(1);                                                                      \
        }                                                                                      \
    } while (0)

constexpr int kModel = 5120, kInter = 2304, kExperts = 96, kTopk = 5, kRoutings = 8;
constexpr int kPairs1 = kModel / 64;   // stage 1: block pairs (2 x 32 K) along model_dim
constexpr int kGroups1 = kInter / 8;   // stage 1: 16-row tiles (8 gate + 8 up rows) an expert
constexpr int kPairs2 = kInter / 64;   // stage 2: block pairs along inter_dim
constexpr int kGroups2 = kModel / 16;  // stage 2: 16-row tiles an expert
constexpr unsigned kMask = 0x9C9C9C9Cu;

// FP4 word -> two words of four e4m3 bytes (each an e2m1 value times 2^-6: sign bit 7, e1 e0 m in bits 4..2).
__host__ __device__ inline unsigned dec_lo(unsigned c) { return (c ^ (c >> 4)) & kMask; }
__host__ __device__ inline unsigned dec_hi(unsigned c) { return (c ^ (c << 2)) & kMask; }

// FP4 word -> four f16 pairs (each an e2m1 value times 2^-14: sign bit 15, e1 e0 m in bits 11..9), the A
// registers of one m16n8k16 step. An invertible map of the 32 bits (a GF(2) search found these four shifts).
constexpr unsigned kMask16 = 0x8E008E00u;
__host__ __device__ inline unsigned dec16(unsigned c, int i) {
    return i == 0 ? (c ^ (c << 2)) & kMask16 : i == 1 ? (c ^ (c << 6)) & kMask16 : i == 2 ? (c ^ (c << 9)) & kMask16
                                                                                      : (c ^ (c >> 3)) & kMask16;
}

// LOADER 1: the load asks L2 to fetch the whole 256-byte sector group (one DRAM burst pair) it falls in.
template <int LOADER>
__device__ inline uint4 ld_stream(const uint4* p) {
    uint4 v;
    if (LOADER == 1)
        asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    else
        asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    return v;
}
__device__ inline unsigned ld_word(const unsigned* p) {
    unsigned v;
    asm volatile("ld.global.nc.L1::no_allocate.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}
__device__ inline void mma(float (&d)[4], unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned b0, unsigned b1) {
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%10,%10,%10,%10};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "f"(0.f));
}
__device__ inline void mma16(float (&d)[4], unsigned c, unsigned b0, unsigned b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(dec16(c, 0)), "r"(dec16(c, 1)), "r"(dec16(c, 2)), "r"(dec16(c, 3)), "r"(b0), "r"(b1));
}
// The f16 products' scale: 2^(w + a - 254) * 2^14, exponent field w + a - 113.
__device__ inline float scale16_of(unsigned w, unsigned a) { return __uint_as_float((w + a - 113u) << 23); }
// 2^(w + a - 254) * 2^6 (the e4m3 decode's 2^-6 undone) as a float: exponent field w + a - 121.
__device__ inline float scale_of(unsigned w, unsigned a) { return __uint_as_float((w + a - 121u) << 23); }

// One block pair's f16 products (MATH 3): the lane's weight words `c` (four m16n8k16 A fragments through dec16)
// and scale word `sc`, the token's halves `h0`, `h1` (the B fragments) and its two block scale bytes `as`; adds
// the scaled sums of rows g (lo) and g + 8 (hi).
__device__ inline void pair_f16(uint4 c, unsigned sc, uint4 h0, uint4 h1, unsigned as, float& lo, float& hi) {
    float e0[4] = {0.f, 0.f, 0.f, 0.f}, e1[4] = {0.f, 0.f, 0.f, 0.f};
    mma16(e0, c.x, h0.x, h0.y);
    mma16(e0, c.y, h0.z, h0.w);
    mma16(e1, c.z, h1.x, h1.y);
    mma16(e1, c.w, h1.z, h1.w);
    const unsigned a0 = as & 0xFF, a1 = as >> 8;
    lo = fmaf(e0[0], scale16_of(sc & 0xFF, a0), lo);
    hi = fmaf(e0[2], scale16_of((sc >> 8) & 0xFF, a0), hi);
    lo = fmaf(e1[0], scale16_of((sc >> 16) & 0xFF, a1), lo);
    hi = fmaf(e1[2], scale16_of(sc >> 24, a1), hi);
}

__device__ inline unsigned smem_addr(const void* p) { return unsigned(__cvta_generic_to_shared(p)); }
constexpr int kSlotVec = 40;  // a cp.async slot: 32 lanes' 16 weight bytes, then their 32 scale words (8 uint4)

// One warp's share of one 16-row tile: NP block pairs from `w` (512 bytes a pair, lane's 16), their scale words
// (`s`, 32 bytes a pair, lane's word g), the token's permuted activations (`x`, 64 bytes a pair, lane's 16 at t)
// and scale bytes (`xs`, two a pair). Returns the sums of rows g (lo) and g + 8 (hi). MATH 0: the same loads,
// consumed by an XOR only (the access pattern's own ceiling; its outputs are garbage and not checked); MATH 2:
// all but the products (the decode, the activation loads and the scaling; garbage too); MATH 3: the weights
// decoded to f16 (dec16) and m16n8k16 f16 products on the token in f16 (`xh`, 32 bytes a pair and lane t), no
// e4m3 -> f16 conversions in the product (sm_90 runs the e4m3 mma.sync as F2FP conversions and f16 HMMA).
// LOADER 0: D pairs of loads a lane in flight in registers (ptxas may sink them toward their use); 1: the same
// with L2::256B; 2: a ring of D slots in shared memory filled by cp.async (L2::256B), which ptxas cannot sink.
// TOKEN_SHARED: `xh` and `xs` point into shared memory (fused_probe.cu quantises the token there), read as such.
template <int NP, int D, int LOADER, int MATH, bool TOKEN_SHARED = false>
__device__ inline float2 tile_share(const uint4* w, const unsigned* s, const uint4* x, const unsigned short* xs,
                                 const uint4* xh) {
    static_assert(!TOKEN_SHARED || MATH == 0 || MATH == 3, "only the f16 products read the token from shared memory");
    const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    w += lane;
    s += g;
    x += t;
    xh += t * 2;
    extern __shared__ uint4 smem_ring[];
    uint4* mine = smem_ring + (threadIdx.x >> 5) * D * kSlotVec;
    uint4 ring[LOADER == 2 ? 1 : D];
    unsigned sring[LOADER == 2 ? 1 : D];
    auto issue = [&](int p) {  // pair p into its slot (LOADER 2), or an empty group past the end
        if (p < NP) {
            uint4* slot = mine + (p % D) * kSlotVec;
            asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;" ::"r"(smem_addr(slot + lane)), "l"(w + p * 32));
            asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smem_addr(reinterpret_cast<unsigned*>(slot + 32) + lane)),
                         "l"(s + p * 8));
        }
        asm volatile("cp.async.commit_group;");
    };
#pragma unroll
    for (int i = 0; i < D; ++i) {
        if (LOADER == 2) {
            issue(i);
        } else {
            ring[i] = ld_stream<LOADER>(w + i * 32);
            sring[i] = ld_word(s + i * 8);
        }
    }
    float lo = 0.f, hi = 0.f;
#pragma unroll
    for (int p = 0; p < NP; ++p) {
        uint4 c;
        unsigned sc;
        if (LOADER == 2) {
            asm volatile("cp.async.wait_group %0;" ::"n"(D - 1));
            const uint4* slot = mine + (p % D) * kSlotVec;
            c = slot[lane];
            sc = reinterpret_cast<const unsigned*>(slot + 32)[lane];
        } else {
            c = ring[p % D];
            sc = sring[p % D];
            if (p + D < NP) {
                ring[p % D] = ld_stream<LOADER>(w + (p + D) * 32);
                sring[p % D] = ld_word(s + (p + D) * 8);
            }
        }
        if (!MATH) {
            lo = __uint_as_float(__float_as_uint(lo) ^ c.x ^ c.y ^ c.z ^ c.w ^ sc);
        } else if (MATH == 3) {
            if (TOKEN_SHARED)
                pair_f16(c, sc, xh[p * 8], xh[p * 8 + 1], xs[p], lo, hi);
            else
                pair_f16(c, sc, __ldg(xh + p * 8), __ldg(xh + p * 8 + 1), __ldg(xs + p), lo, hi);
        } else {
            const uint4 a = __ldg(x + p * 4);
            const unsigned as = __ldg(xs + p);
            float d0[4], d1[4];
            if (MATH == 1) {
                mma(d0, dec_lo(c.x), dec_hi(c.x), dec_lo(c.y), dec_hi(c.y), a.x, a.y);
                mma(d1, dec_lo(c.z), dec_hi(c.z), dec_lo(c.w), dec_hi(c.w), a.z, a.w);
            } else {  // MATH 2: everything but the products (their cost apart; outputs garbage)
                d0[0] = __uint_as_float(dec_lo(c.x) ^ dec_lo(c.y) ^ a.x), d0[2] = __uint_as_float(dec_hi(c.x) ^ dec_hi(c.y) ^ a.y);
                d1[0] = __uint_as_float(dec_lo(c.z) ^ dec_lo(c.w) ^ a.z), d1[2] = __uint_as_float(dec_hi(c.z) ^ dec_hi(c.w) ^ a.w);
            }
            const unsigned a0 = as & 0xFF, a1 = as >> 8;
            lo = fmaf(d0[0], scale_of(sc & 0xFF, a0), lo);
            hi = fmaf(d0[2], scale_of((sc >> 8) & 0xFF, a0), hi);
            lo = fmaf(d1[0], scale_of((sc >> 16) & 0xFF, a1), lo);
            hi = fmaf(d1[2], scale_of(sc >> 24, a1), hi);
        }
        if (LOADER == 2) {  // the slot's words are in registers (used above): refill it
            __syncwarp();
            issue(p + D);
        }
    }
    return make_float2(lo, hi);
}

struct Stage1Args {
    const uint4* w;           // [E][kGroups1][kPairs1][32 lanes] uint4
    const unsigned* ws;       // [E][kGroups1][kPairs1][8] words
    const uint4* x;           // [kPairs1][4] uint4: the token, permuted
    const unsigned short* xs; // [kPairs1]
    const int* experts;       // [kRoutings][kTopk]
    int routing;
    __nv_bfloat16* out;       // [kTopk][kInter]
    const uint4* xh;          // MATH 3: [kPairs1][4][2] uint4, the token in f16, permuted
};

template <int S, int D, int LOADER = 0, int MATH = 1>
__global__ void stage1(Stage1Args a) {
    constexpr int NP = kPairs1 / S;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int slot = blockIdx.x / kGroups1, r = blockIdx.x % kGroups1;
    const long long e = a.experts[a.routing * kTopk + slot];
    const long long tile = (e * kGroups1 + r) * kPairs1 + warp * NP;
    const float2 v = tile_share<NP, D, LOADER, MATH>(a.w + tile * 32, a.ws + tile * 8, a.x + warp * NP * 4, a.xs + warp * NP,
                                                     a.xh + warp * NP * 8);
    __shared__ float part[S][16];
    if ((lane & 3) == 0) {
        part[warp][lane >> 2] = v.x;
        part[warp][8 + (lane >> 2)] = v.y;
    }
    __syncthreads();
    if (threadIdx.x < 8) {
        float gate = 0.f, up = 0.f;
#pragma unroll
        for (int k = 0; k < S; ++k) gate += part[k][threadIdx.x], up += part[k][8 + threadIdx.x];
        a.out[slot * kInter + r * 8 + threadIdx.x] = __float2bfloat16(gate / (1.f + __expf(-gate)) * up);
    }
}

// The position of column k of a row in the f16 token order (permute_token_f16), in halves: word (pair p, lane t,
// step j, register q) holds k = 64p + 16j + 2t + 8q (low half) and the next (high).
__host__ __device__ inline int f16_position(int k) {
    const int p = k / 64, j = (k % 64) / 16, r = k % 16, t = (r % 8) / 2, q = r / 8, h = r % 2;
    return (((p * 4 + t) * 4 + j) * 2 + q) * 2 + h;
}

// Stage 1 writing what the f16 stage 2 reads (the chain, docs/pending item 29 step 3): a workgroup of four 16-row
// tiles (32 gate and 32 up rows: one 32-column MX block of the output) x S K-shares (4S warps, tile-major), f16
// products; SiLU(g) * u of its 32 columns in f16 under one e8m0 scale (the block's largest magnitude brought into
// [2^14, 2^15)), written in the f16 token order, the scale byte a block.
struct Stage1MxArgs {
    const uint4* w;
    const unsigned* ws;
    const unsigned short* xs;  // [kPairs1]: the token's scale bytes, two a pair
    const uint4* xh;           // [kPairs1][4][2]: the token in f16, permuted
    const int* experts;
    int routing;
    unsigned short* out_h;     // [kTopk][kInter] f16, in the f16 token order
    unsigned char* out_s;      // [kTopk][kInter / 32] e8m0
};

template <int S, int D, int LOADER = 0>
__global__ void stage1_mx(Stage1MxArgs a) {
    constexpr int NP = kPairs1 / S, kBlocks = kInter / 32;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int quarter = warp / S, share = warp % S;
    const int slot = blockIdx.x / kBlocks, blk = blockIdx.x % kBlocks;
    const long long e = a.experts[a.routing * kTopk + slot];
    const long long tile = (e * kGroups1 + blk * 4 + quarter) * kPairs1 + share * NP;
    const float2 v = tile_share<NP, D, LOADER, 3>(a.w + tile * 32, a.ws + tile * 8, a.xh, a.xs + share * NP,
                                                  a.xh + share * NP * 8);
    __shared__ float part[4 * S][16];
    if ((lane & 3) == 0) {
        part[warp][lane >> 2] = v.x;
        part[warp][8 + (lane >> 2)] = v.y;
    }
    __syncthreads();
    if (warp == 0) {  // lane = the block's column: tile lane / 8, row lane % 8 of its gate and up halves
        float gate = 0.f, up = 0.f;
#pragma unroll
        for (int k = 0; k < S; ++k) gate += part[(lane >> 3) * S + k][lane & 7], up += part[(lane >> 3) * S + k][8 + (lane & 7)];
        const float y = gate / (1.f + __expf(-gate)) * up;
        float m = fabsf(y);
        for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
        const int ex = min(max(int((__float_as_uint(m) >> 23) & 0xFF) - 127 - 14, -127), 126);
        const __half hv = __float2half_rn(y * __uint_as_float(unsigned(127 - ex) << 23));
        a.out_h[slot * kInter + f16_position(blk * 32 + lane)] = __half_as_ushort(hv);
        if (lane == 0) a.out_s[slot * kBlocks + blk] = (unsigned char)(ex + 127);
    }
}

struct Stage2Args {
    const uint4* w;            // [E][kGroups2][kPairs2][32] uint4
    const unsigned* ws;        // [E][kGroups2][kPairs2][8]
    const uint4* x;            // [kTopk][kPairs2][4] uint4: the intermediate rows, permuted
    const unsigned short* xs;  // [kTopk][kPairs2]
    const int* experts;
    const float* weights;      // [kRoutings][kTopk]
    int routing;
    __nv_bfloat16* out;        // [kModel]
    const uint4* xh;           // MATH 3: [kTopk][kPairs2][4][2] uint4
};

template <int S, int D, int LOADER = 0, int MATH = 1>
__global__ void stage2(Stage2Args a) {
    constexpr int NP = kPairs2 / S;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int slot = warp / S, share = warp % S, r = blockIdx.x;
    const long long e = a.experts[a.routing * kTopk + slot];
    const long long tile = (e * kGroups2 + r) * kPairs2 + share * NP;
    const float2 v = tile_share<NP, D, LOADER, MATH>(a.w + tile * 32, a.ws + tile * 8, a.x + (slot * kPairs2 + share * NP) * 4,
                                       a.xs + slot * kPairs2 + share * NP, a.xh + (slot * kPairs2 + share * NP) * 8);
    __shared__ float part[S * kTopk][16];
    const float wt = a.weights[a.routing * kTopk + slot];
    if ((lane & 3) == 0) {
        part[warp][lane >> 2] = v.x * wt;
        part[warp][8 + (lane >> 2)] = v.y * wt;
    }
    __syncthreads();
    if (threadIdx.x < 16) {
        float sum = 0.f;
#pragma unroll
        for (int k = 0; k < S * kTopk; ++k) sum += part[k][threadIdx.x];
        a.out[r * 16 + threadIdx.x] = __float2bfloat16(sum);
    }
}

__global__ void fill(unsigned* p, long long n, unsigned seed, unsigned lo, unsigned span) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        unsigned h = unsigned(i) * 2654435761u ^ seed ^ unsigned(i >> 32) * 40503u;
        h ^= h >> 15, h *= 2246822519u, h ^= h >> 13, h *= 3266489917u, h ^= h >> 16;
        if (span == 0) {
            p[i] = h;
        } else {  // four bytes each in [lo, lo + span)
            unsigned v = 0;
            for (int b = 0; b < 4; ++b) v |= (lo + ((h >> (8 * b)) & 0xFF) % span) << (8 * b);
            p[i] = v;
        }
    }
}

// The weights of kExperts experts in the two stages' layouts (random FP4 bytes, scales 2^-7..2^0), after the
// device's line (`prop` filled).
struct ProbeWeights {
    unsigned *w1, *s1, *w2, *s2;
};
static ProbeWeights start_probe(cudaDeviceProp& prop) {
    CK(cudaGetDeviceProperties(&prop, 0));
    std::printf("%s, %d SMs\n", prop.name, prop.multiProcessorCount);
    const long long w1_words = (long long)kExperts * kGroups1 * kPairs1 * 128, s1_words = (long long)kExperts * kGroups1 * kPairs1 * 8;
    const long long w2_words = (long long)kExperts * kGroups2 * kPairs2 * 128, s2_words = (long long)kExperts * kGroups2 * kPairs2 * 8;
    ProbeWeights pw;
    CK(cudaMalloc(&pw.w1, w1_words * 4));
    CK(cudaMalloc(&pw.s1, s1_words * 4));
    CK(cudaMalloc(&pw.w2, w2_words * 4));
    CK(cudaMalloc(&pw.s2, s2_words * 4));
    fill<<<1024, 256>>>(pw.w1, w1_words, 11, 0, 0);
    fill<<<1024, 256>>>(pw.s1, s1_words, 12, 120, 8);
    fill<<<1024, 256>>>(pw.w2, w2_words, 13, 0, 0);
    fill<<<1024, 256>>>(pw.s2, s2_words, 14, 120, 8);
    CK(cudaGetLastError());
    return pw;
}
// kRoutings routings of kTopk distinct experts each, with their weights.
static void make_routings(std::mt19937& rng, std::vector<int>& experts, std::vector<float>& weights) {
    for (int r = 0; r < kRoutings; ++r) {
        std::vector<int> all(kExperts);
        for (int i = 0; i < kExperts; ++i) all[i] = i;
        std::shuffle(all.begin(), all.end(), rng);
        for (int k = 0; k < kTopk; ++k) experts[r * kTopk + k] = all[k], weights[r * kTopk + k] = 0.1f + (rng() % 100) / 250.f;
    }
}

// ---- host reference, from the packed bytes through the PTX fragment tables ----
static double e4m3(unsigned char b) {
    const int s = b >> 7, E = (b >> 3) & 15, M = b & 7;
    const double v = E ? std::ldexp(1.0 + M / 8.0, E - 7) : std::ldexp(M / 8.0, -6);
    return s ? -v : v;
}
static double f16v(unsigned h) {
    const int s = h >> 15, E = (h >> 10) & 31, M = h & 1023;
    const double v = E ? std::ldexp(1.0 + M / 1024.0, E - 15) : std::ldexp(M / 1024.0, -14);
    return s ? -v : v;
}
// Element (row, k within the pair's 64) of the 16 x 64 pair tile held by `lane`'s word `word` (0..3), byte j
// (0..3) of its decoded register `reg` (0: lo, 1: hi). Words 0, 1: the pair's first block; 2, 3: its second.
static void frag_a(int lane, int word, int reg, int j, int& row, int& k) {
    const int g = lane >> 2, t = lane & 3;
    const int areg = (word & 1) * 2 + reg;  // a0 = lo(w0), a1 = hi(w0), a2 = lo(w1), a3 = hi(w1)
    row = (areg & 1) ? g + 8 : g;
    k = (word >> 1) * 32 + t * 4 + j + ((areg & 2) ? 16 : 0);
}
// The permuted token vector: uint4 (pair p, lane t) holds b0, b1 of the pair's first block, then of its second.
inline void permute_token(const unsigned char* v, int pairs, unsigned char* out) {
    for (int p = 0; p < pairs; ++p)
        for (int t = 0; t < 4; ++t)
            for (int q = 0; q < 4; ++q)  // q: b0, b1 of block 0, b0, b1 of block 1
                for (int j = 0; j < 4; ++j)
                    out[(p * 4 + t) * 16 + q * 4 + j] = v[p * 64 + (q >> 1) * 32 + (q & 1) * 16 + t * 4 + j];
}
// Row sums of one 16-row tile over all pairs on the activation values xv (unpermuted, scales applied).
// F16: the words read as MATH 3 reads them (dec16, m16n8k16 fragments).
static void ref_tile(const unsigned* w, const unsigned* ws, int pairs, const double* xv, double* sums, double* mags,
                     bool f16) {
    for (int i = 0; i < 16; ++i) sums[i] = mags[i] = 0;
    auto add = [&](int p, int row, int k, double wv) {
        const unsigned sw = ws[p * 8 + (row & 7)];  // bytes (g, b0), (g+8, b0), (g, b1), (g+8, b1)
        const unsigned wsb = (sw >> (8 * ((row >= 8) + 2 * (k >= 32)))) & 0xFF;
        const double term = wv * std::ldexp(1.0, int(wsb) - 127) * xv[p * 64 + k];
        sums[row] += term;
        mags[row] += std::fabs(term);
    };
    if (f16) {
        for (int p = 0; p < pairs; ++p)
            for (int lane = 0; lane < 32; ++lane)
                for (int j = 0; j < 4; ++j) {
                    const unsigned c = w[(p * 32 + lane) * 4 + j];
                    for (int i = 0; i < 4; ++i)
                        for (int h = 0; h < 2; ++h) {
                            const int g = lane >> 2, t = lane & 3;
                            const int row = (i & 1) ? g + 8 : g, k = 16 * j + 2 * t + h + ((i & 2) ? 8 : 0);
                            add(p, row, k, f16v((dec16(c, i) >> (16 * h)) & 0xFFFF) * 16384.0);
                        }
                }
        return;
    }
    for (int p = 0; p < pairs; ++p)
        for (int lane = 0; lane < 32; ++lane)
            for (int word = 0; word < 4; ++word) {
                const unsigned c = w[(p * 32 + lane) * 4 + word];
                for (int reg = 0; reg < 2; ++reg) {
                    const unsigned d = reg ? dec_hi(c) : dec_lo(c);
                    for (int j = 0; j < 4; ++j) {
                        int row, k;
                        frag_a(lane, word, reg, j, row, k);
                        add(p, row, k, e4m3((d >> (8 * j)) & 0xFF) * 64.0);
                    }
                }
            }
}

// The token in f16 for MATH 3, in the f16 token order (f16_position).
inline void permute_token_f16(const unsigned char* v, int pairs, unsigned* out) {
    unsigned short* halves = reinterpret_cast<unsigned short*>(out);
    for (int k = 0; k < pairs * 64; ++k) halves[f16_position(k)] = __half_as_ushort(__float2half(float(e4m3(v[k]))));
}
// One 16-row tile's sums and magnitudes from its packed bytes on the device.
static void tile_sums(const unsigned* w, const unsigned* sc, long long tile, int pairs, const double* xv, bool f16,
                      double* sums, double* mags) {
    std::vector<unsigned> hw(pairs * 128), hs(pairs * 8);
    CK(cudaMemcpy(hw.data(), w + tile * 128, hw.size() * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hs.data(), sc + tile * 8, hs.size() * 4, cudaMemcpyDeviceToHost));
    ref_tile(hw.data(), hs.data(), pairs, xv, sums, mags, f16);
}
// Stage 1 of the kTopk `experts` on the token's values `xv` ([kModel]): SiLU(g) * u ([kTopk][kInter]) and the
// magnitude its error is judged against.
static void reference1(const unsigned* w1, const unsigned* s1, const int* experts, const double* xv, bool f16,
                       std::vector<double>& ref1, std::vector<double>& mag1) {
    double sums[16], mags[16];
    for (int slot = 0; slot < kTopk; ++slot)
        for (int r = 0; r < kGroups1; ++r) {
            tile_sums(w1, s1, ((long long)experts[slot] * kGroups1 + r) * kPairs1, kPairs1, xv, f16, sums, mags);
            for (int g = 0; g < 8; ++g) {
                const double gate = sums[g], up = sums[8 + g];
                ref1[slot * kInter + r * 8 + g] = gate / (1 + std::exp(-gate)) * up;
                mag1[slot * kInter + r * 8 + g] = std::fabs(gate / (1 + std::exp(-gate))) * mags[8 + g] +
                                                  mags[g] * std::fabs(up);
            }
        }
}
// Stage 2 of the kTopk `experts` on the intermediate values `xv` ([kTopk][kInter]), weighted by `weights` and
// summed into ref2 / mag2 ([kModel], zeroed by the caller).
static void reference2(const unsigned* w2, const unsigned* s2, const int* experts, const float* weights,
                       const double* xv, bool f16, std::vector<double>& ref2, std::vector<double>& mag2) {
    double sums[16], mags[16];
    for (int slot = 0; slot < kTopk; ++slot)
        for (int r = 0; r < kGroups2; ++r) {
            tile_sums(w2, s2, ((long long)experts[slot] * kGroups2 + r) * kPairs2, kPairs2, xv + slot * kInter, f16,
                      sums, mags);
            for (int i = 0; i < 16; ++i)
                ref2[r * 16 + i] += weights[slot] * sums[i], mag2[r * 16 + i] += weights[slot] * mags[i];
        }
}
static float bf(__nv_bfloat16 v) { return __bfloat162float(v); }
// A kernel's bf16 output against the reference: the worst |kernel - ref| over the sum of the terms' magnitudes
// (bf16 output: ~4e-3 of the value at most) must stay below 1e-2.
static bool check(const __nv_bfloat16* d, const std::vector<double>& ref, const std::vector<double>& mag) {
    std::vector<__nv_bfloat16> h(ref.size());
    CK(cudaMemcpy(h.data(), d, h.size() * 2, cudaMemcpyDeviceToHost));
    double worst = 0, dot = 0, nk = 0, nr = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
        const double k = bf(h[i]);
        worst = std::max(worst, std::fabs(k - ref[i]) / (mag[i] + std::fabs(ref[i]) + 1e-30));
        dot += k * ref[i], nk += k * k, nr += ref[i] * ref[i];
    }
    std::printf("    check: worst error / magnitude %.2e, cosine %.8f -> %s\n", worst, dot / std::sqrt(nk * nr),
                worst < 1e-2 ? "pass" : "FAIL");
    return worst < 1e-2;
}

template <class F>
static float time_graph(F launch_all) {
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
    launch_all(st);
    CK(cudaStreamEndCapture(st, &g));
    CK(cudaGraphInstantiate(&ge, g, 0));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<float> ms;
    for (int r = 0; r < 33; ++r) {
        CK(cudaEventRecord(a, st));
        CK(cudaGraphLaunch(ge, st));
        CK(cudaEventRecord(b, st));
        CK(cudaEventSynchronize(b));
        float t;
        CK(cudaEventElapsedTime(&t, a, b));
        if (r >= 3) ms.push_back(t * 1e3f / kRoutings);
    }
    std::sort(ms.begin(), ms.end());
    CK(cudaGraphExecDestroy(ge));
    CK(cudaGraphDestroy(g));
    CK(cudaStreamDestroy(st));
    return ms[ms.size() / 2];
}
