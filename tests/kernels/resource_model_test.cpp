// The resource model: the documented formulas on hand-computed examples, and the warp grid.
#include "kernels/kernel_name.h"
#include "kernels/resource_model.h"
#include "support/catch.hpp"

using namespace moetune::kernels;

namespace {
KernelConfig parse(const char* name) { return *parse_kernel_name(name); }
}  // namespace

TEST_CASE("shared memory and registers of a stage-1 config, computed by hand") {
    // t32x128x256, 8 warps, 2 stages, fused MXFP8 out.
    const KernelConfig c = parse("moetune_moe1_afp8_wfp4_bf16_t32x128x256_gui_fp8");
    const ResourceEstimate r = estimate_resources(c, 32);
    // A 32x256 fp8 + 32x8 scales = 8448; B 128x256 fp4 + 128x8 scales = 17408; x2 stages = 51712.
    // Epilogue 32x64 fp8 + 32x2 scales = 2112; routing 32 ids x 4 B = 128.
    CHECK(r.shared_memory_bytes == 51712 + 2112 + 128);
    // Warp grid 2x4 (16x32 blocks). Accumulators 32*128/256 = 16; operands 2 x (16+32)*32 B / 128 B = 24; + 40.
    CHECK(r.registers_per_thread == 16 + 24 + 40);
}

TEST_CASE("shared memory of a stage-2 config, computed by hand") {
    const KernelConfig c = parse("moetune_moe2_afp8_wfp4_bf16_t64x256x128_reduce_w4_st4");
    const ResourceEstimate r = estimate_resources(c, 32);
    // A 64x128 + 64x4 = 8448; B 256x64 + 256x4 = 17408; x4 = 103424; bf16 staging 64x256x2 = 32768; 64 x 8 B = 512.
    CHECK(r.shared_memory_bytes == 103424 + 32768 + 512);
    // Grid 1x4 (64x64 blocks): accumulators 64*256/128 = 128; operands 2 x (64+64)*32/128 = 64; + 40.
    CHECK(r.registers_per_thread == 128 + 64 + 40);
}

TEST_CASE("the unfused stage-1 epilogue stages bf16, the fused one fp8 plus scales") {
    KernelConfig fused = parse("moetune_moe1_afp8_wfp4_bf16_t64x256x256_gui_fp8");
    KernelConfig plain = fused;
    plain.fused_mxfp8_out = false;
    // 64 x 128 outputs: bf16 16384 B versus fp8 8192 B + 256 scales.
    CHECK(estimate_resources(plain, 32).shared_memory_bytes - estimate_resources(fused, 32).shared_memory_bytes ==
          16384 - 8192 - 256);
}

TEST_CASE("wave64 halves the per-lane accumulators") {
    const KernelConfig c = parse("moetune_moe1_afp8_wfp4_bf16_t128x256x256_gui_fp8");
    CHECK(estimate_resources(c, 64).registers_per_thread < estimate_resources(c, 32).registers_per_thread);
    CHECK(estimate_resources(c, 64).shared_memory_bytes == estimate_resources(c, 32).shared_memory_bytes);
}

TEST_CASE("warp grid: squarest blocks of at least 16 rows and 32 (stage 1) or 16 (stage 2) columns") {
    auto grid = [](const char* name) { return warp_grid(parse(name)); };
    const auto big = grid("moetune_moe1_afp8_wfp4_bf16_t128x256x256");
    REQUIRE(big);
    CHECK(big->warps_m == 2);
    CHECK(big->warps_n == 4);
    const auto small = grid("moetune_moe1_afp8_wfp4_bf16_t16x64x128_w2");
    REQUIRE(small);
    CHECK(small->warps_m == 1);
    CHECK(small->warps_n == 2);
    CHECK_FALSE(grid("moetune_moe1_afp8_wfp4_bf16_t16x64x128_w4"));  // 16x16 blocks would split gate from up
    const auto stage2 = grid("moetune_moe2_afp8_wfp4_bf16_t16x64x128_atomic_w4");
    REQUIRE(stage2);
    CHECK(stage2->warps_n == 4);
    CHECK_FALSE(grid("moetune_moe2_afp8_wfp4_bf16_t16x64x128_atomic"));  // 8 warps: 16x8 blocks
    CHECK_THROWS_AS(estimate_resources(parse("moetune_moe2_afp8_wfp4_bf16_t16x64x128_atomic"), 32),
                    std::invalid_argument);
}
