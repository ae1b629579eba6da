#pragma once
// The few-token stages as GEMVs on f16 products (_gemv; moe_gemv_stage1.hip, moe_gemv_stage2.hip).
//
// Why: at one or two tokens a stage streams its experts' weights once and multiplies them by one or
// two columns, so its pace is how many weight loads the grid keeps in flight, not its math. The
// register-fed kernels' grid (360 workgroups of 4 warps at stage 1) streams at 2.49 TB/s on an H100
// with loads alone; a grid of one 16-row MMA tile per warp group, K split among the group's warps,
// streams at 2.86 (docs/kernel-design.md, "One token's stages as GEMVs on a finer grid").
// And why f16: sm_90 runs an e4m3 mma.sync as conversions to f16 and f16 products (12 F2FP a
// product in the SASS), so the weights are decoded straight to f16 pairs (two operations a pair) and
// the rows come as f16 (their e4m3 values are exact in f16), for mma.sync m16n8k16 f16.
//
// The weights' copy (kernels::WeightCopy::f16_tiles; made by weight_layout.hip's
// weight_layout_f16_tiles from the logical weights, tuner/formats/f16_gemv_layout.h on the host):
//   values: per expert, per 16-row tile r, per pair p of 32-wide K blocks (64 K), per lane (g, t) of a
//           warp (g = lane / 4, t = lane % 4), 4 words j = 0..3 (16 bytes: one vector load a lane a
//           pair). Word j is the A operand of the pair's m16n8k16 step j in the f16 code (mx_f16_code.h):
//           decoded register i (0..3) holds, as two halves h, the tile's element (row, k):
//             row = i & 1 ? g + 8 : g,   k = 64 p + 16 j + 2 t + h + (i & 2 ? 8 : 0).
//           Tile rows: stage 1 (gate_up) tile r = gate rows 8r..8r+7 then up rows inter+8r..+7 of the
//           logical W1 (so a lane ends with the gate and up sums of the same output column);
//           stage 2 (down) tile r = rows 16r..16r+15.
//   scales: per expert, tile, pair, 8 words g: bytes (row g, block 2p), (row g+8, block 2p),
//           (row g, block 2p+1), (row g+8, block 2p+1), e8m0; lane (g, t) loads word g.
// The rows (the tokens, stage 1's output): f16 values, each row's K in the f16 row order
// (mx_f16_row_position: lane t of a pair reads 32 consecutive bytes, the B registers of the pair's four
// steps), with the e8m0 block scales as MXFP8 has them ([rows, K/32]). Stage 1's input is the MXFP8
// activations' e4m3 values as f16; stage 1 writes SiLU(gate) * up as f16 under one e8m0 scale a
// 32-column block (the block's largest magnitude brought into [2^14, 2^15)), what stage 2 reads.
#include "host_device.h"
#include "memory.h"
#include "mma_emulation.h"
#include "mx_f16_code.h"
#include "mx_types.h"

// 2^(b - 127) for an e8m0 byte, byte 0 as 0 (such a block's values are below 2^-118, as the
// register-fed loop's scale_of takes it); one shift.
__device__ inline float mx_f16_gemv_scale(moetune_u32 b) { return mx_float_of((b & 0xFFu) << 23); }

// ---- the product -----------------------------------------------------------------------------------
// How the emulation (mma_emulation.h) reads an f16 fragment register: 2 elements, half i = element i.
struct MxF16Elements {
    static constexpr int kPerRegister = 2;
    __device__ static float value(moetune_u32 reg, int i) { return mx_f16_to_float(moetune_u16(reg >> (16 * i))); }
};

// c += A(16x16) * B(16x8), f16 operands (mma_bf16.h's fragments), FP32 accumulate. Tensor cores on
// sm_80+; elsewhere the portable emulation.
__device__ inline void mx_mma_f16_16x8x16(float c[4], const moetune_u32 a[4], moetune_u32 b0, moetune_u32 b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
    const moetune_u32 b[2] = {b0, b1};
    mx_mma_emulated_16x8<MxF16Elements>(c, a, b);
#endif
}

// Step j of a pair: weight word `coded` (A) times the rows' B registers b0, b1.
__device__ inline void mx_f16_gemv_step(float c[4], moetune_u32 coded, moetune_u32 b0, moetune_u32 b1) {
    const moetune_u32 a[4] = {mx_e2m1_f16_decode(coded, 0), mx_e2m1_f16_decode(coded, 1), mx_e2m1_f16_decode(coded, 2),
                              mx_e2m1_f16_decode(coded, 3)};
    mx_mma_f16_16x8x16(c, a, b0, b1);
}

// What a lane of a warp reads of the rows: its B column's row (column g of the product; the lane
// loads that row's 32 bytes of each pair at offset t), and the scale rows of its two output columns
// 2t and 2t + 1 (C's columns). Columns past the tile's rows repeat a valid row (their sums are not
// written), so no lane branches.
struct MxF16GemvRows {
    const moetune_u16* b_row;     // [K] f16 in the row order, column g's row
    const moetune_u8* scale_c0;   // [K/32] e8m0, column 2t's row
    const moetune_u8* scale_c1;   // column 2t + 1's row
};

// One warp's share of one 16-row tile: `pairs` pairs of 32-wide K blocks from the tile's pair
// `first` (w, ws: the weights' copy at that pair, as laid out above; the rows' pointers at K = 0).
// D pairs of weight loads a lane in flight: in registers (RING false; ptxas may move them toward their
// use), or in a ring of D slots in shared memory filled by cp.async (RING true; `ring` the warp's
// D * kMxF16GemvSlotBytes bytes), which the compiler cannot move. `after_first_loads` runs once the
// first D pairs are asked for (stage 2 waits for stage 1 there). Returns, in acc, the sums of rows
// (g, g, g+8, g+8) by columns (2t, 2t+1, 2t, 2t+1), in units of the f16 code's 2^-14. With COLUMNS 1
// (a block of one row, whose other columns repeat it) only the first column's scales are read and
// multiplied, acc[1] and acc[3] stay 0: a third fewer scaling instructions a pair, 2-3 % off a kernel's
// time on an H100 (docs/kernel-design.md, "The few-token GEMVs").
template <int D, bool RING, int COLUMNS, class AfterFirstLoads>
__device__ inline void mx_f16_tile_share(const mx_u32x4* __restrict__ w, const moetune_u32* __restrict__ ws, int first,
                                         int pairs, const MxF16GemvRows& rows, unsigned char* ring, float (&acc)[4],
                                         AfterFirstLoads after_first_loads) {
    const int lane = int(threadIdx.x) & 31, g = lane >> 2, t = lane & 3;
    w += lane;
    ws += g;
    mx_u32x4 values[RING ? 1 : D];
    moetune_u32 scales[RING ? 1 : D];
    auto slot = [&](int i) { return ring + i * kMxF16GemvSlotBytes; };
    auto ask = [&](int p, int i) {  // pair p into register set or slot i
        if constexpr (RING) {
            if (p < pairs) {
                mx_cp_async16(slot(i) + lane * 16, w + p * 32, true);
                mx_cp_async4(slot(i) + 512 + lane * 4, ws + p * 8);
            }
            mx_cp_async_commit();  // (an empty group past the end keeps the count of groups in flight)
        } else if (p < pairs) {
            values[i] = mx_load16_stream(w + p * 32);
            scales[i] = mx_load4(ws + p * 8);
        }
    };
#pragma unroll
    for (int i = 0; i < D; ++i) ask(i, i);
    after_first_loads();
    for (int i = 0; i < 4; ++i) acc[i] = 0.f;
    const moetune_u16* b_row = rows.b_row + first * 64 + t * 16;
    // A pair's two block scales of a row as one 2-byte load (K / 32 and 2 first are even).
    const moetune_u16* s0 = reinterpret_cast<const moetune_u16*>(rows.scale_c0) + first;
    const moetune_u16* s1 = reinterpret_cast<const moetune_u16*>(rows.scale_c1) + first;
    // The rows' words of a pair (B registers h0, h1; the block scales c0, c1 of columns 2t, 2t + 1), read
    // one pair ahead of their use: they come from L1 or L2, not the ring, and read where they are used they
    // put a cache latency on every pair (ncu, one token, H100: 58-67 % of a warp's cycles waiting on L1TEX).
    mx_u32x4 h0_next{}, h1_next{};
    moetune_u32 c0_next = 0, c1_next = 0;
    auto ask_rows = [&](int p) {
        h0_next = mx_load16_ldg(b_row + p * 64);
        h1_next = mx_load16_ldg(b_row + p * 64 + 8);
        c0_next = mx_load2_ldg(s0 + p);
        if constexpr (COLUMNS > 1) c1_next = mx_load2_ldg(s1 + p);
    };
    if (pairs > 0) ask_rows(0);
    for (int p0 = 0; p0 < pairs; p0 += D) {
#pragma unroll
        for (int i = 0; i < D; ++i) {
            const int p = p0 + i;
            if (p >= pairs) break;
            const mx_u32x4 h0 = h0_next, h1 = h1_next;
            const moetune_u32 c0 = c0_next, c1 = c1_next;
            if (p + 1 < pairs) ask_rows(p + 1);
            mx_u32x4 c;
            moetune_u32 sc;
            if constexpr (RING) {
                mx_cp_async_wait_group<D - 1>();
                c = mx_load_shared16(slot(i) + lane * 16);
                sc = *reinterpret_cast<const moetune_u32*>(slot(i) + 512 + lane * 4);
            } else {
                c = values[i];
                sc = scales[i];
                ask(p + D, i);
            }
            float e0[4] = {0.f, 0.f, 0.f, 0.f}, e1[4] = {0.f, 0.f, 0.f, 0.f};
            mx_f16_gemv_step(e0, c.x, h0.x, h0.y);
            mx_f16_gemv_step(e0, c.y, h0.z, h0.w);
            mx_f16_gemv_step(e1, c.z, h1.x, h1.y);
            mx_f16_gemv_step(e1, c.w, h1.z, h1.w);
            // Weight rows g / g+8 of blocks 2p / 2p+1 (sc's bytes), columns 2t / 2t+1 (c0, c1's bytes).
            const float lo0 = mx_f16_gemv_scale(sc), hi0 = mx_f16_gemv_scale(sc >> 8);
            const float lo1 = mx_f16_gemv_scale(sc >> 16), hi1 = mx_f16_gemv_scale(sc >> 24);
            const float c0b0 = mx_f16_gemv_scale(c0), c0b1 = mx_f16_gemv_scale(c0 >> 8);
            acc[0] = fmaf(e1[0], lo1 * c0b1, fmaf(e0[0], lo0 * c0b0, acc[0]));
            acc[2] = fmaf(e1[2], hi1 * c0b1, fmaf(e0[2], hi0 * c0b0, acc[2]));
            if constexpr (COLUMNS > 1) {
                const float c1b0 = mx_f16_gemv_scale(c1), c1b1 = mx_f16_gemv_scale(c1 >> 8);
                acc[1] = fmaf(e1[1], lo1 * c1b1, fmaf(e0[1], lo0 * c1b0, acc[1]));
                acc[3] = fmaf(e1[3], hi1 * c1b1, fmaf(e0[3], hi0 * c1b0, acc[3]));
            }
            if constexpr (RING) {
#if defined(__CUDA_ARCH__)
                __syncwarp();  // the slot's words are in registers: refill it
#endif
                ask(p + D, i);
            }
        }
    }
}

// mx_f16_tile_share with the block's row count known: one B column where the block holds one row (every
// block at one token, most at two), all of them otherwise. The choice is the workgroup's, so no warp diverges.
template <int D, bool RING, class AfterFirstLoads>
__device__ inline void mx_f16_tile_share_of_block(bool one_row, const mx_u32x4* __restrict__ w,
                                                  const moetune_u32* __restrict__ ws, int first, int pairs,
                                                  const MxF16GemvRows& rows, unsigned char* ring, float (&acc)[4],
                                                  AfterFirstLoads after_first_loads) {
    if (one_row)
        mx_f16_tile_share<D, RING, 1>(w, ws, first, pairs, rows, ring, acc, after_first_loads);
    else
        mx_f16_tile_share<D, RING, kMxF16GemvColumns>(w, ws, first, pairs, rows, ring, acc, after_first_loads);
}

// The sums of each warp in shared memory, [warp][column][tile row], for the shares to meet: lane (g, t)'s
// rows g, g + 8 of columns 2t, 2t + 1 (mx_f16_tile_share's acc).
__device__ inline void mx_f16_gemv_store_sums(float (*part)[kMxF16GemvColumns][16], int warp, const float (&acc)[4]) {
    const int lane = int(threadIdx.x) & 31, g = lane >> 2, t = lane & 3;
    part[warp][2 * t][g] = acc[0];
    part[warp][2 * t + 1][g] = acc[1];
    part[warp][2 * t][8 + g] = acc[2];
    part[warp][2 * t + 1][8 + g] = acc[3];
}

// The entry points' bounds: with _occ{n}, at least n workgroups an SM; without, at least one (ptxas would
// otherwise cap 512-thread workgroups at 64 registers and spill).
#if defined(MOETUNE_MIN_WORKGROUPS) && MOETUNE_MIN_WORKGROUPS > 0
#define MX_GEMV_BOUNDS MX_LAUNCH_BOUNDS_MIN(MOETUNE_WARPS * 32, MOETUNE_MIN_WORKGROUPS)
#else
#define MX_GEMV_BOUNDS __launch_bounds__(MOETUNE_WARPS * 32, 1)
#endif

// A warp's share of a tile's pairs: K's pairs split as evenly as S warps allow.
__device__ inline void mx_f16_gemv_share(int all_pairs, int share, int shares, int& first, int& count) {
    first = all_pairs * share / shares;
    count = all_pairs * (share + 1) / shares - first;
}
