// Shape heuristics: the active-expert model and the default config at every token count.
#include <algorithm>
#include <cmath>

#include "dsv41_shape.h"
#include "kernels/candidates.h"
#include "kernels/kernel_name.h"
#include "kernels/shape_heuristics.h"
#include "kernels/stage_handoff.h"
#include "kernels/static_checks.h"
#include "support/catch.hpp"

using namespace moetune::kernels;
using moetune::data::MoeShape;
using moetune::test::dsv41_flash_ep4;
using moetune::test::kBuckets;

namespace {
// Catch2 v2 and v3 name their approximate matcher differently; a plain tolerance works with both.
bool near(double a, double b) { return std::abs(a - b) < 1e-9 * std::max(1.0, std::abs(b)); }

// The default pair of DSv4.1-Flash at `tokens` names these two kernels.
void check_default_names(int tokens, const DeviceLimits& limits, const char* stage1, const char* stage2) {
    INFO(tokens << " tokens");
    const auto pair = default_config(dsv41_flash_ep4(tokens), limits);
    REQUIRE(pair);
    CHECK(kernel_name(pair->stage1) == stage1);
    CHECK(kernel_name(pair->stage2) == stage2);
}
}  // namespace

TEST_CASE("expected active experts follow the uniform-routing model and the measured anchors") {
    CHECK(near(expected_active_experts(dsv41_flash_ep4(1)), 5.0));
    CHECK(near(rows_per_active_expert(dsv41_flash_ep4(1)), 1.0));
    // performance-anchors.md, experts touched at 1..64 tokens under softmax top-5 routing.
    const std::pair<int, double> measured[] = {{2, 10}, {4, 17}, {8, 35}, {16, 55}, {32, 78}, {64, 96}};
    for (auto [tokens, experts] : measured) {
        INFO(tokens << " tokens");
        CHECK(std::abs(expected_active_experts(dsv41_flash_ep4(tokens)) - experts) < 3.5);
    }
    CHECK(near(expected_active_experts(dsv41_flash_ep4(16384)), 96.0));
    CHECK(near(rows_per_active_expert(dsv41_flash_ep4(16384)), 16384.0 * 5 / 96));
}

TEST_CASE("block_m heuristic: padding at few tokens, too many blocks at many") {
    CHECK_FALSE(block_m_heuristic_reason(16, dsv41_flash_ep4(1)));
    CHECK_FALSE(block_m_heuristic_reason(32, dsv41_flash_ep4(1)));  // up to twice the fitting block
    const auto padding = block_m_heuristic_reason(64, dsv41_flash_ep4(1));
    REQUIRE(padding);
    CHECK(padding->rfind("heuristic: block_m 64 is mostly padding", 0) == 0);
    const auto split = block_m_heuristic_reason(16, dsv41_flash_ep4(16384));
    REQUIRE(split);
    CHECK(split->rfind("heuristic: block_m 16 cuts each expert", 0) == 0);
    // Never the largest block of every family, nor the wgmma-only 256.
    CHECK_FALSE(block_m_heuristic_reason(128, dsv41_flash_ep4(1 << 20)));
    CHECK_FALSE(block_m_heuristic_reason(256, dsv41_flash_ep4(1 << 20)));
    CHECK(block_m_heuristic_reason(256, dsv41_flash_ep4(1024)));  // 53 rows an expert: mostly padding
}

TEST_CASE("default_config is a valid, heuristic-approved pair at every token count 1..16384") {
    for (const char* arch : {"sm_90a", "gfx942", "gfx950"}) {
        const DeviceLimits limits = *device_limits_for_arch(arch);
        for (int tokens = 1; tokens <= 16384; ++tokens) {
            const MoeShape shape = dsv41_flash_ep4(tokens);
            const auto pair = default_config(shape, limits);
            INFO(arch << " tokens " << tokens);
            REQUIRE(pair);
            CHECK(pair->stage1.stage == Stage::gate_up);
            CHECK(pair->stage2.stage == Stage::down);
            CHECK_FALSE(config_error(pair->stage1));
            CHECK_FALSE(config_error(pair->stage2));
            CHECK_FALSE(static_prune_reason(pair->stage1, shape, limits));
            CHECK_FALSE(static_prune_reason(pair->stage2, shape, limits));
            CHECK(pair->stage1.tile_m == sort_block_m(pair->stage2));
            CHECK_FALSE(block_m_heuristic_reason(pair->stage1.tile_m, shape));
            CHECK(pair->stage1.fused_mxfp8_out);
            CHECK_FALSE(handoff_error(pair->stage1, pair->stage2));  // the library can run it
        }
    }
}

TEST_CASE("on the H200 the default pair is one of the candidates of its bucket") {
    const DeviceLimits limits = *device_limits_for_arch("sm_90a");
    for (int tokens : kBuckets) {
        const MoeShape shape = dsv41_flash_ep4(tokens);
        const auto pair = default_config(shape, limits);
        REQUIRE(pair);
        for (const KernelConfig& c : {pair->stage1, pair->stage2}) {
            const CandidateList list = enumerate_candidates(c.stage, shape, limits);
            INFO(tokens << " tokens: " << kernel_name(c));
            CHECK(std::find(list.kept.begin(), list.kept.end(), c) != list.kept.end());
        }
    }
}

TEST_CASE("default_config tiers: streaming at few tokens, larger tiles at many") {
    const DeviceLimits limits = *device_limits_for_arch("sm_90a");
    // One token: 90 stage-1 workgroups of the streaming tier's 256-wide tiles on 132 SMs, so K-groups
    // of 4 warps on 64-row W1 tiles (360 workgroups); two tokens (~175, 1.3 per SM): 128-wide tiles
    // with K-groups of 2. Stage 2 of both: 64-wide tiles with K-groups of 2 (the sweep's pairs).
    check_default_names(1, limits, "moetune_moe1_afp8_wfp4_bf16_t16x64x128_w4_nt_mbf16_gui_kw4_fp8",
                        "moetune_moe2_afp8_wfp4_bf16_t16x64x128_atomic_w4_nt_mbf16_kw2");
    check_default_names(2, limits, "moetune_moe1_afp8_wfp4_bf16_t16x128x128_w4_nt_mbf16_gui_kw2_fp8",
                        "moetune_moe2_afp8_wfp4_bf16_t16x64x128_atomic_w4_nt_mbf16_kw2");
    // Four and eight tokens (2.5 and 4.6 workgroups of the streaming stage 1 per SM): 128-wide tiles,
    // K-groups of 2 in stage 1, in stage 2 while its grid has under 6 per SM (4 tokens), else the
    // occupancy bound (8 tokens: ~10 per SM).
    check_default_names(4, limits, "moetune_moe1_afp8_wfp4_bf16_t16x128x128_w4_nt_mbf16_gui_kw2_fp8",
                        "moetune_moe2_afp8_wfp4_bf16_t16x128x128_atomic_w4_nt_mbf16_kw2");
    check_default_names(8, limits, "moetune_moe1_afp8_wfp4_bf16_t16x128x128_w4_nt_mbf16_gui_kw2_fp8",
                        "moetune_moe2_afp8_wfp4_bf16_t16x128x128_atomic_w4_occ4_nt_mbf16");
    // From 16 tokens (7.5 stage-1 workgroups per SM and more) the streaming pair, bounded to 4
    // workgroups per SM on sm_90a (16 warps), unbounded elsewhere.
    check_default_names(16, limits, "moetune_moe1_afp8_wfp4_bf16_t16x256x128_w4_occ4_nt_mbf16_gui_fp8",
                        "moetune_moe2_afp8_wfp4_bf16_t16x256x128_atomic_w4_occ4_nt_mbf16");
    for (int tokens : {4, 128}) {
        const auto amd = default_config(dsv41_flash_ep4(tokens), *device_limits_for_arch("gfx950"));
        REQUIRE(amd);
        CHECK(amd->stage1.min_workgroups == 0);
        CHECK(amd->stage2.min_workgroups == 0);
    }
    // 256 tokens (~13 rows per expert) still stream; 512 (~27 rows) and 1024 tokens (~53 rows):
    // warpgroup kernels on 64-row blocks with shared operands, stage 1 two warpgroups side by side;
    // 2048 tokens (~107 rows): on 128-row blocks, 256 wide, two warpgroups side by side per 64 rows;
    // 4096 tokens (~213 rows): on 256-row blocks, four; elsewhere than sm_90a the register-fed ones.
    check_default_names(256, limits, "moetune_moe1_afp8_wfp4_bf16_t16x256x128_w4_occ4_nt_mbf16_gui_fp8",
                        "moetune_moe2_afp8_wfp4_bf16_t16x256x128_atomic_w4_occ4_nt_mbf16");
    for (int tokens : {512, 1024})
        check_default_names(tokens, limits, "moetune_moe1_afp8_wfp4_bf16_t64x256x128_smem_wgmma_mbf16_gui_fp8",
                            "moetune_moe2_afp8_wfp4_bf16_t64x128x128_atomic_w4_smem_wgmma_mbf16");
    check_default_names(2048, limits, "moetune_moe1_afp8_wfp4_bf16_t128x256x128_w16_smem_wgmma_mbf16_gui_fp8",
                        "moetune_moe2_afp8_wfp4_bf16_t128x256x128_atomic_w16_smem_wgmma_mbf16");
    check_default_names(4096, limits, "moetune_moe1_afp8_wfp4_bf16_t256x128x128_w16_smem_wgmma_mbf16_gui_fp8",
                        "moetune_moe2_afp8_wfp4_bf16_t256x128x128_atomic_w16_smem_wgmma_mbf16");
    const auto amd = default_config(dsv41_flash_ep4(4096), *device_limits_for_arch("gfx950"));
    REQUIRE(amd);
    CHECK_FALSE(amd->stage1.wgmma);
    // 16384 tokens (~853 rows), register-fed (gfx950): 32 would cut an expert into 27 blocks, so
    // 64, with cached loads; on sm_90a the 256-row warpgroup kernels.
    const auto most = default_config(dsv41_flash_ep4(16384), *device_limits_for_arch("gfx950"));
    REQUIRE(most);
    CHECK(most->stage1.tile_m == 64);
    CHECK(most->stage1.mma == MmaPath::bf16);
    CHECK_FALSE(most->stage1.nontemporal_weights);
    CHECK(default_config(dsv41_flash_ep4(16384), limits)->stage1.tile_m == 256);
}

TEST_CASE("default_config shrinks tiles for awkward sizes and refuses impossible shapes") {
    const DeviceLimits limits = *device_limits_for_arch("sm_90a");
    // Many tokens on gfx950 (register-fed, 64-row blocks): stage 2 prefers K 256 per prefetch, but its
    // K here is one chunk, so the prefetch shrinks to 128.
    const DeviceLimits amd = *device_limits_for_arch("gfx950");
    MoeShape short_k = dsv41_flash_ep4(16384);
    short_k.inter_dim = 128;
    const auto pair = default_config(short_k, amd);
    REQUIRE(pair);
    CHECK_FALSE(static_prune_reason(pair->stage1, short_k, amd));
    CHECK_FALSE(static_prune_reason(pair->stage2, short_k, amd));
    CHECK(pair->stage2.tile_k == 128);

    MoeShape impossible = dsv41_flash_ep4(1);
    impossible.model_dim = 5100;
    CHECK_FALSE(default_config(impossible, limits));
}
