// The resource model: the warp grid the templates get, the documented formulas of both MMA paths on
// hand-computed examples, and the register counts ptxas reported for sm_90a (CUDA 13.0) that
// calibrated them.
#include <algorithm>
#include <cstdlib>
#include <initializer_list>
#include <string>

#include "kernels/kernel_name.h"
#include "kernels/resource_model.h"
#include "parsed_config.h"
#include "support/catch.hpp"

using namespace moetune::kernels;
using moetune::test::parse;

namespace {
int registers(const std::string& name) { return estimate_resources(parse(name)).registers_per_thread; }

struct Measured {
    const char* name;
    int ptxas;  // registers ptxas used for the warp block, sm_90a; 0 = spilled
};

// The model keeps what fit (estimate at most 255, within `tolerance` of ptxas) and drops what spilled.
void check_tracks_ptxas(std::initializer_list<Measured> measured, int tolerance) {
    for (const Measured& m : measured) {
        INFO(m.name);
        const int estimate = registers(m.name);
        if (m.ptxas == 0) {
            CHECK(estimate > 255);
        } else {
            CHECK(estimate <= 255);
            CHECK(std::abs(estimate - m.ptxas) <= tolerance);
        }
    }
}
}  // namespace

TEST_CASE("warp grid: whole 16-row blocks of whole gate/up groups, MX blocks or MMA columns, squarest first") {
    auto grid = [](const std::string& name) { return warp_grid(parse(name)); };
    // Stage 1 t32x128, 4 warps: 1x4 gives 32x32 blocks, 2x2 16x64: the squarer one.
    const auto s1 = grid("moetune_moe1_afp8_wfp4_bf16_t32x128x256_w4_gui");
    REQUIRE(s1);
    CHECK(s1->warps_m == 1);
    CHECK(s1->warps_n == 4);
    // With the fused epilogue a warp needs 64 W1 rows (a whole 32-column MX block): only 2x2.
    const auto fused = grid("moetune_moe1_afp8_wfp4_bf16_t32x128x128_w4_gui_fp8");
    REQUIRE(fused);
    CHECK(fused->warps_m == 2);
    CHECK(fused->warps_n == 2);
    // A tie (2x4 64x32 and 4x2 32x64 sum to 96) goes to more warps along N.
    const auto tie = grid("moetune_moe2_afp8_wfp4_bf16_t128x128x128_atomic");
    REQUIRE(tie);
    CHECK(tie->warps_m == 2);
    CHECK(tie->warps_n == 4);
    // Stage 2 may split N down to 8 columns.
    const auto narrow = grid("moetune_moe2_afp8_wfp4_bf16_t16x64x128_atomic");
    REQUIRE(narrow);
    CHECK(narrow->warps_n == 8);
    // No grid: 16 rows cannot be split, and 64 W1 rows hold only two gate/up groups.
    CHECK_FALSE(grid("moetune_moe1_afp8_wfp4_bf16_t16x64x128_w4_gui"));
    CHECK_FALSE(grid("moetune_moe1_afp8_wfp4_bf16_t16x64x128_w2_gui_fp8"));
    CHECK_THROWS_AS(estimate_resources(parse("moetune_moe1_afp8_wfp4_bf16_t16x64x128_w4_gui")), std::invalid_argument);
}

TEST_CASE("registers: 12 + 8 MT + 16 NJ + 8 MT NJ + 4 PIPE NJ for the warp block, by hand") {
    // t32x128x256 w4: 32x32 warp blocks, MT 2, NJ 4, PIPE 2: 12 + 16 + 64 + 64 + 32.
    CHECK(registers("moetune_moe1_afp8_wfp4_bf16_t32x128x256_w4_gui") == 188);
    // t128x128x128 w8 stage 2: 64x32 blocks, MT 4, NJ 4, PIPE 1: 12 + 32 + 64 + 128 + 16.
    CHECK(registers("moetune_moe2_afp8_wfp4_bf16_t128x128x128_atomic") == 252);
    // The same block with 4 chunks in flight: + 4 x 3 x 4.
    CHECK(registers("moetune_moe2_afp8_wfp4_bf16_t128x128x512_atomic") == 252 + 48);
}

TEST_CASE("registers track ptxas: below 255 where it fit, above where it spilled") {
    check_tracks_ptxas(
        {
            {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_w4_gui", 214},      // 32x32, the lead's example
            {"moetune_moe1_afp8_wfp4_bf16_t16x64x128_w2_gui", 126},       // 16x32
            {"moetune_moe1_afp8_wfp4_bf16_t16x128x128_w2_gui_fp8", 248},  // 16x64
            {"moetune_moe2_afp8_wfp4_bf16_t64x128x128_atomic_w4", 245},   // 64x32
            {"moetune_moe2_afp8_wfp4_bf16_t128x128x256_reduce", 0},       // 64x32 at 2 chunks: spilled 12 B
            {"moetune_moe1_afp8_wfp4_bf16_t128x256x256_gui", 0},          // 64x64: spilled 1040 B
            {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_w4_gui_fp8", 0},    // 16x64 at 2 chunks: spilled 52 B
        },
        26);
}

TEST_CASE("bf16 path registers: 10 + 12 MT + 9 NJ + 4 MT NJ + 4 PIPE NJ, by hand") {
    // t32x128x256 w4: 32x32 warp blocks, MT 2, NJ 4, PIPE 2: 10 + 24 + 36 + 32 + 32.
    CHECK(registers("moetune_moe1_afp8_wfp4_bf16_t32x128x256_w4_mbf16_gui") == 134);
    // t128x128x128 w8 stage 2: 64x32 blocks, MT 4, NJ 4, PIPE 1: 10 + 48 + 36 + 64 + 16.
    CHECK(registers("moetune_moe2_afp8_wfp4_bf16_t128x128x128_atomic_mbf16") == 174);
}

TEST_CASE("bf16 path registers track ptxas: at most 254 where it fit, above where it spilled") {
    check_tracks_ptxas(
        {
            {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_w4_mbf16_gui", 145},      // 32x32; FP8 twin 214
            {"moetune_moe1_afp8_wfp4_bf16_t16x128x128_w2_mbf16_gui_fp8", 164},  // 16x64; FP8 twin 252
            {"moetune_moe2_afp8_wfp4_bf16_t128x128x128_atomic_mbf16", 181},     // 64x32; FP8 twin 241
            {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_w2_mbf16_gui", 239},      // 32x64, the largest that fit
            {"moetune_moe1_afp8_wfp4_bf16_t16x128x512_w2_mbf16_gui", 254},      // 16x64 at 4 chunks (_fp8: 12 B spill)
            {"moetune_moe1_afp8_wfp4_bf16_t128x128x128_w4_mbf16_gui", 0},       // 64x64: spilled 92 B
            {"moetune_moe1_afp8_wfp4_bf16_t32x128x512_w2_mbf16_gui", 0},        // 32x64 at 4 chunks: 136 B
            {"moetune_moe1_afp8_wfp4_bf16_t16x256x128_w2_mbf16_gui", 0},        // 16x128: 92 B
        },
        33);
}

TEST_CASE("shared memory holds only the row tables") {
    CHECK(estimate_resources(parse("moetune_moe1_afp8_wfp4_bf16_t128x64x128_gui")).shared_memory_bytes == 128 * 8);
    CHECK(estimate_resources(parse("moetune_moe2_afp8_wfp4_bf16_t64x128x256_atomic")).shared_memory_bytes == 64 * 16);
}

// _wgmma: 32 + a warp's tile_n / 2 / warps_n accumulators + 32 per weight vector a thread stages
// (16 where the loop takes one chunk a pass), against ptxas -v for sm_90a (CUDA 13.0, stage 1 with
// and without _fp8 and stage 2 alike): at or below it by at most 31 where it fit, within the
// registers a thread of the workgroup has (128 with 16 warps), over them where ptxas spilled or
// gave up.
TEST_CASE("wgmma registers track ptxas: within the workgroup's share where it fit, over it where it spilled") {
    // ptxas 0: spilled (64x256 with 4 warps: 400 B) or did not fit 128 (256x256).
    for (const Measured& m : {Measured{"moetune_moe1_afp8_wfp4_bf16_t64x64x128_w4_smem_wgmma_mbf16_gui", 128},
                              Measured{"moetune_moe1_afp8_wfp4_bf16_t64x128x128_w4_smem_wgmma_mbf16_gui_fp8", 245},
                              Measured{"moetune_moe2_afp8_wfp4_bf16_t128x64x128_atomic_smem_wgmma_mbf16", 96},
                              Measured{"moetune_moe1_afp8_wfp4_bf16_t128x128x128_smem_wgmma_mbf16_gui", 178},
                              Measured{"moetune_moe1_afp8_wfp4_bf16_t256x64x128_w16_smem_wgmma_mbf16_gui_fp8", 102},
                              Measured{"moetune_moe2_afp8_wfp4_bf16_t256x128x128_atomic_w16_smem_wgmma_mbf16", 128},
                              Measured{"moetune_moe1_afp8_wfp4_bf16_t64x256x128_w4_smem_wgmma_mbf16_gui", 0},
                              Measured{"moetune_moe1_afp8_wfp4_bf16_t256x256x128_w16_smem_wgmma_mbf16_gui", 0},
                              // Two warpgroups side by side.
                              Measured{"moetune_moe1_afp8_wfp4_bf16_t64x256x128_smem_wgmma_mbf16_gui", 230},
                              Measured{"moetune_moe2_afp8_wfp4_bf16_t128x256x128_atomic_w16_smem_wgmma_mbf16", 128}}) {
        INFO(m.name);
        const KernelConfig c = parse(m.name);
        const int estimate = estimate_resources(c).registers_per_thread;
        const int share = std::min(255, 65536 / (32 * c.warps));
        if (m.ptxas == 0) {
            CHECK(estimate > share);
        } else {
            CHECK(estimate <= m.ptxas);
            CHECK(m.ptxas - estimate <= 31);
            CHECK(estimate <= share);
        }
    }
    // Errs high where it prunes a tile ptxas fits: 128x256 stage 2 with 8 warps, 255 registers.
    CHECK(registers("moetune_moe2_afp8_wfp4_bf16_t128x256x128_atomic_smem_wgmma_mbf16") == 288);
    // By hand: t256x128 with 16 warps, 512 weight vectors over 512 threads, one chunk a pass: 32 + 64 + 16.
    CHECK(registers("moetune_moe1_afp8_wfp4_bf16_t256x128x128_w16_smem_wgmma_mbf16_gui") == 112);
}

// The operand buffers of _smem (MxMoeSharedGemm::kSharedBytes): two of 256 bytes per row, 1024
// more to align them for _wgmma, and a third where a 128-row _wgmma tile fits 227 KB with it.
TEST_CASE("shared operands: two buffers, three for 128-row wgmma tiles that fit") {
    CHECK(dynamic_shared_bytes(parse("moetune_moe1_afp8_wfp4_bf16_t128x64x128_gui")) == 0);
    CHECK(dynamic_shared_bytes(parse("moetune_moe1_afp8_wfp4_bf16_t64x128x128_w4_smem_mbf16_gui")) ==
          2 * 256 * (64 + 128));
    CHECK(dynamic_shared_bytes(parse("moetune_moe1_afp8_wfp4_bf16_t64x128x128_w4_smem_wgmma_mbf16_gui")) ==
          2 * 256 * (64 + 128) + 1024);
    CHECK(dynamic_shared_bytes(parse("moetune_moe1_afp8_wfp4_bf16_t128x128x128_smem_wgmma_mbf16_gui")) ==
          3 * 256 * (128 + 128) + 1024);
    CHECK(dynamic_shared_bytes(parse("moetune_moe2_afp8_wfp4_bf16_t128x256x128_atomic_smem_wgmma_mbf16")) ==
          2 * 256 * (128 + 256) + 1024);
    // 256 rows: a third buffer of 96 KB would not fit.
    CHECK(dynamic_shared_bytes(parse("moetune_moe1_afp8_wfp4_bf16_t256x128x128_w16_smem_wgmma_mbf16_gui")) ==
          2 * 256 * (256 + 128) + 1024);
    // Register-fed FP8 warpgroup products: the 16-warp 32-row tile fits its share (ptxas: 128, no spill).
    CHECK(estimate_resources(parse("moetune_moe2_afp8_wfp4_bf16_t32x256x256_atomic_w16_nt_wgmma")).registers_per_thread <=
          128);
    // Their shared memory: two windows of 8 chunks of the tile's rows (MxMoeFp8RegisterGemm).
    CHECK(dynamic_shared_bytes(parse("moetune_moe2_afp8_wfp4_bf16_t16x128x512_atomic_nt_wgmma")) == 2 * 8 * 16 * 128 + 1024);
    CHECK(dynamic_shared_bytes(parse("moetune_moe2_afp8_wfp4_bf16_t32x64x256_atomic_w4_nt_wgmma")) == 2 * 8 * 32 * 128 + 1024);
}

// The warp-specialised FP8 loop (_ws): a consumer thread's accumulators (tile_n / 2 a 64-row block)
// and ~40, within the even share of the SM's registers that the launch takes; ptxas (NVRTC sm_90a,
// CUDA 13.0, `moetune compile`, session 35) for the tiles of the space, none of which spilled but the
// bf16-output t128x192 (384 B) that the estimate keeps as well.
TEST_CASE("_ws registers track ptxas within the launch's even share") {
    for (const Measured& m : {Measured{"moetune_moe1_afp8_wfp4_bf16_t128x64x128_smem_wgmma_ws_gui_fp8", 106},
                              Measured{"moetune_moe2_afp8_wfp4_bf16_t128x64x128_atomic_smem_wgmma_ws", 123},
                              Measured{"moetune_moe1_afp8_wfp4_bf16_t128x128x128_smem_wgmma_ws_gui_fp8", 182},
                              Measured{"moetune_moe2_afp8_wfp4_bf16_t128x128x128_atomic_smem_wgmma_ws", 224},
                              Measured{"moetune_moe1_afp8_wfp4_bf16_t128x192x128_smem_wgmma_ws_gui_fp8", 255},
                              Measured{"moetune_moe1_afp8_wfp4_bf16_t64x256x128_w12_smem_wgmma_ws_gui_fp8", 168},
                              Measured{"moetune_moe2_afp8_wfp4_bf16_t64x256x128_atomic_w12_smem_wgmma_ws", 168},
                              Measured{"moetune_moe1_afp8_wfp4_bf16_t128x256x128_w12_smem_wgmma_ws_gui_fp8", 168},
                              Measured{"moetune_moe2_afp8_wfp4_bf16_t128x256x128_atomic_w12_smem_wgmma_ws", 168},
                              Measured{"moetune_moe1_afp8_wfp4_bf16_t256x128x128_w12_smem_wgmma_ws_gui_fp8", 168},
                              Measured{"moetune_moe2_afp8_wfp4_bf16_t256x128x128_atomic_w12_smem_wgmma_ws", 168}}) {
        INFO(m.name);
        const KernelConfig c = parse(m.name);
        const int estimate = estimate_resources(c).registers_per_thread;
        CHECK(estimate <= 65536 / (32 * c.warps));  // what the static checks let through
        CHECK(std::abs(estimate - m.ptxas) <= 56);  // stage 2's atomic epilogue at 128 x 128: 224 against 168
    }
    // By hand: one consumer warpgroup of two 64 x 128 blocks (8 warps, share 256): 40 + 2 * 64.
    CHECK(registers("moetune_moe1_afp8_wfp4_bf16_t128x128x128_smem_wgmma_ws_gui_fp8") == 168);
    // Two consumer warpgroups of one 64 x 256 block each (12 warps): the share, 168, which the launch
    // takes; the consumers raise theirs at run time. The same side by side at 64 x 256.
    CHECK(registers("moetune_moe1_afp8_wfp4_bf16_t128x256x128_w12_smem_wgmma_ws_gui_fp8") == 168);
    CHECK(registers("moetune_moe1_afp8_wfp4_bf16_t64x256x128_w12_smem_wgmma_ws_gui_fp8") == 168);
}

// Its ring of chunk buffers (mx_ws_stages): as many (tile_m + tile_n) x 128-byte buffers as fit 227 KB
// beside 1024 bytes of alignment and 8 KB of static shared memory (and _f4w's rebased ring), at most 8.
TEST_CASE("_ws shared memory: the ring of chunk buffers that fits beside the static tables") {
    CHECK(dynamic_shared_bytes(parse("moetune_moe1_afp8_wfp4_bf16_t128x256x128_w12_smem_wgmma_ws_gui_fp8")) ==
          4 * (128 + 256) * 128 + 1024);
    CHECK(dynamic_shared_bytes(parse("moetune_moe2_afp8_wfp4_bf16_t64x256x128_atomic_w12_smem_wgmma_ws")) ==
          5 * (64 + 256) * 128 + 1024);
    CHECK(dynamic_shared_bytes(parse("moetune_moe1_afp8_wfp4_bf16_t128x128x128_smem_wgmma_ws_gui_fp8")) ==
          6 * (128 + 128) * 128 + 1024);
    CHECK(dynamic_shared_bytes(parse("moetune_moe1_afp8_wfp4_bf16_t128x64x128_smem_wgmma_ws_gui_fp8")) ==
          8 * (128 + 64) * 128 + 1024);
    // _f4w: chunk buffers of the rows and the FP4 blocks (64 rows of 64 bytes and 4 table rows a
    // block: 4352 bytes), on 1024-byte boundaries, beside a ring of two rebased 256-row buffers.
    CHECK(dynamic_shared_bytes(parse("moetune_moe1_afp8_wfp4_bf16_t128x256x128_w12_smem_wgmma_ws_f4w_gui_fp8")) ==
          4 * (128 * 128 + 4 * 4352) + 2 * 256 * 128 + 1024);
    CHECK(dynamic_shared_bytes(parse("moetune_moe2_afp8_wfp4_bf16_t64x256x128_atomic_w12_smem_wgmma_ws_f4w")) ==
          6 * (64 * 128 + 4 * 4352) + 2 * 256 * 128 + 1024);
}
