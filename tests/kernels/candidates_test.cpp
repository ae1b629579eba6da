// Candidate enumeration: for the reference shape every kept config is a distinct kernel that fits
// the device and divides the GEMMs; bad shapes and tight devices prune with readable reasons.
#include <algorithm>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "dsv41_shape.h"
#include "parsed_config.h"
#include "kernels/candidates.h"
#include "kernels/kernel_name.h"
#include "kernels/resource_model.h"
#include "kernels/static_checks.h"
#include "support/catch.hpp"
#include "support/test_env.h"

using namespace moetune::kernels;
using moetune::test::parse;
using moetune::data::MoeShape;
using moetune::test::dsv41_flash_ep4;
using moetune::test::kBuckets;
using moetune::test::contains;

namespace {

const DeviceLimits& sm90a() {
    static const DeviceLimits limits = *device_limits_for_arch("sm_90a");
    return limits;
}


// Re-derives, independently of static_checks.cpp, that `c` can run `s` on `d`.
void check_fits(const KernelConfig& c, const MoeShape& s, const DeviceLimits& d) {
    INFO(kernel_name(c));
    CHECK_FALSE(config_error(c));
    const bool stage1 = c.stage == Stage::gate_up;
    CHECK((stage1 ? 2 * s.inter_dim : s.model_dim) % c.tile_n == 0);
    CHECK(c.tile_k <= (stage1 ? s.model_dim : s.inter_dim));
    CHECK(c.tile_k % 128 == 0);
    CHECK(c.warps * 32 <= d.max_threads_per_block);
    const auto grid = warp_grid(c);
    REQUIRE(grid);
    // The templates' static_asserts (kernel_templates/moe_stage1.hip, moe_stage2.hip).
    const int warp_m = c.tile_m / grid->warps_m, warp_n = c.tile_n / grid->warps_n;
    // (Warp-specialised: the grid is the epilogue's 16-row blocks; 4 warps a 128-row consumer
    // warpgroup, or at 256 wide a 64-row one or two side by side at 64 rows, and 4 producers.)
    if (c.warp_specialised) CHECK(c.warps == (c.tile_m == 256 || c.tile_n == 256 ? 12 : 8));
    else CHECK(grid->warps_m * grid->warps_n * c.k_warps == c.warps);
    CHECK(warp_m % 16 == 0);
    // (Swapped _wgmma tiles: one warp per 16 weight rows, gate and up tiles paired in its rows.)
    CHECK(warp_n % (swapped_wgmma(c) ? 16 : stage1 ? (c.fused_mxfp8_out ? 64 : 32) : 8) == 0);
    CHECK(sort_block_m(c) % c.tile_m == 0);
    const ResourceEstimate r = estimate_resources(c);
    CHECK(r.shared_memory_bytes <= d.max_shared_memory_per_block);
    CHECK(r.registers_per_thread <= d.max_registers_per_thread);
    CHECK(r.registers_per_thread * c.warps * 32 <= d.registers_per_block);
}

}  // namespace

TEST_CASE("DSv4.1-Flash: every bucket has distinct candidates that fit sm_90a") {
    for (Stage stage : {Stage::gate_up, Stage::down}) {
        for (int tokens : kBuckets) {
            const MoeShape shape = dsv41_flash_ep4(tokens);
            const CandidateList list = enumerate_candidates(stage, shape, sm90a());
            INFO("stage " << stage_number(stage) << " tokens " << tokens);
            REQUIRE_FALSE(list.kept.empty());
            CHECK(list.kept.size() + list.pruned.size() == search_space(stage).size());

            std::set<std::string> names;
            std::set<std::string> kernels;  // the same kernel spelled with and without _sbm{tile_m}
            for (const KernelConfig& c : list.kept) {
                check_fits(c, shape, sm90a());
                CHECK(names.insert(kernel_name(c)).second);
                KernelConfig plain = c;
                if (plain.sort_block == plain.tile_m) plain.sort_block = 0;
                CHECK(kernels.insert(kernel_name(plain)).second);
            }
            for (const PrunedConfig& p : list.pruned) CHECK_FALSE(p.reason.empty());
        }
    }
}

// The kernels of the tuned table the benchmarks run (docs/results/2026-12-04-h200-bulk-weights) stay
// in the space at their buckets: a resource model that erred high would prune them silently.
TEST_CASE("DSv4.1-Flash: the tuned table's kernels are kept at their buckets") {
    const std::vector<std::pair<int, std::pair<const char*, const char*>>> tuned = {
        {1, {"t16x64x512_w4_nt_wgmma_gui", "t16x128x256_atomic_nt_wgmma"}},
        {128, {"t16x128x512_nt_wgmma_gui", "t16x128x512_atomic_nt_wgmma"}},
        {512, {"t32x256x256_w16_nt_wgmma_gui", "t32x256x256_atomic_w16_nt_wgmma"}},
        {1024, {"t64x256x128_w12_smem_wgmma_ws_gui_fp8", "t64x256x128_atomic_w12_smem_wgmma_ws"}},
        {4096, {"t128x256x128_w12_smem_wgmma_ws_gui_fp8", "t128x256x128_atomic_w12_smem_wgmma_ws"}},
        {16384, {"t128x256x128_w12_smem_wgmma_ws_gui_fp8", "t128x256x128_atomic_w12_smem_wgmma_ws"}}};
    for (const auto& [tokens, kernels] : tuned) {
        for (Stage stage : {Stage::gate_up, Stage::down}) {
            const std::string name = std::string(stage == Stage::gate_up ? "moetune_moe1_afp8_wfp4_bf16_"
                                                                         : "moetune_moe2_afp8_wfp4_bf16_") +
                                     (stage == Stage::gate_up ? kernels.first : kernels.second);
            INFO(name << " at " << tokens << " tokens");
            const CandidateList list = enumerate_candidates(stage, dsv41_flash_ep4(tokens), sm90a());
            CHECK(std::any_of(list.kept.begin(), list.kept.end(),
                              [&](const KernelConfig& c) { return kernel_name(c) == name; }));
        }
    }
}

TEST_CASE("the space: streaming knobs and K-groups on streaming sort blocks, plain reduce, stage-2 warps on wide "
          "tiles, 256-row sort blocks and 16 warps only as wgmma warpgroups") {
    std::size_t streaming_knobs = 0, reduce = 0, k_groups = 0, warpgroup_tiles = 0, bounded = 0, register_fed = 0;
    for (Stage stage : {Stage::gate_up, Stage::down}) {
        for (const KernelConfig& c : search_space(stage)) {
            INFO(kernel_name(c));
            CHECK_FALSE(config_error(c));
            CHECK(warp_grid(c));
            if (c.nontemporal_weights || c.tile_k == 512) {
                CHECK(sort_block_m(c) <= 32);
                ++streaming_knobs;
            }
            if (c.stage == Stage::down && c.mode == Stage2Mode::reduce) {
                CHECK_FALSE(c.nontemporal_weights);
                CHECK(c.sort_block == 0);
                ++reduce;
            }
            if (c.k_warps > 1) {
                CHECK(sort_block_m(c) <= 32);
                CHECK((c.warps == 8 || (c.warps == 4 && c.tile_k == 128)));
                CHECK(c.tile_k <= 256);
                ++k_groups;
            }
            if (c.min_workgroups != 0) {
                CHECK(c.min_workgroups == 4);
                CHECK(c.warps == 4);
                CHECK(c.k_warps == 1);
                CHECK(c.tile_k == 128);
                CHECK(sort_block_m(c) <= 32);
                CHECK(c.mma == MmaPath::bf16);
                CHECK_FALSE(c.shared_operands);
                ++bounded;
            }
            if (c.stage == Stage::down && !c.wgmma) CHECK(c.tile_n >= 16 * (c.warps / c.k_warps));
            if (c.eight_rows) CHECK((register_fed_wgmma(c) && c.tile_m == 16));
            if (register_fed_wgmma(c)) {  // streaming loads, where weights stream; stage 1 with bf16 output
                CHECK((c.mma == MmaPath::fp8 && c.nontemporal_weights && !c.fused_mxfp8_out));
                CHECK(sort_block_m(c) <= 32);
                ++register_fed;
            }
            if (sort_block_m(c) == 256 || c.warps == 16) {
                CHECK(c.wgmma);
                ++warpgroup_tiles;
            }
        }
    }
    CHECK(streaming_knobs > 0);
    CHECK(k_groups > 0);
    CHECK(reduce > 0);
    CHECK(warpgroup_tiles > 0);
    CHECK(bounded > 0);
    // 16/32 x 64/128/256 rows x 2 or 4 chunks ahead in each stage, and 16 rows x 64/128/256 x 8
    // chunks ahead; stage 2 also as 16-row tiles of 32-row sort blocks (_sbm32); each 16-row one
    // also as its eight-row twin (_r8): 6 + 3 in stage 1, 2 x (6 + 3) in stage 2.
    CHECK(register_fed == (12 + 3 + 9) + (18 + 6 + 18));
    // The warp-specialised twins (_ws) of the 128- and 256-row FP8 shared-operand tiles and their
    // 192-wide ones: 10 in stage 1, 13 in stage 2; 256-wide ones of the 64- and 128-row tiles 128
    // wide: 4 and 6, each also with FP4 weights (_f4w); of the 128 x 256 ones (2 and 3, each also
    // _f4w) the read-once twins (_ro).
    CHECK(search_space(Stage::gate_up, {MmaPath::fp8}).size() == 340 + 12 + 3 + 9 + 10 + 4 + 4 + 2 * 2);
    CHECK(search_space(Stage::down, {MmaPath::fp8}).size() == 338 + 18 + 6 + 18 + 13 + 6 + 6 + 3 * 2);
}

TEST_CASE("the MMA paths: both by default, FP8 or bf16 on request; bf16 a copy of FP8 (less its register-fed _wgmma) plus _smem and _occ") {
    for (Stage stage : {Stage::gate_up, Stage::down}) {
        const std::vector<KernelConfig> fp8 = search_space(stage, {MmaPath::fp8});
        const std::vector<KernelConfig> bf16 = search_space(stage, {MmaPath::bf16});
        const std::vector<KernelConfig> both = search_space(stage);
        std::vector<KernelConfig> bf16_plain, bf16_shared, bf16_bounded, fp8_plain, fp8_shared;
        for (const KernelConfig& c : bf16)
            (c.shared_operands ? bf16_shared : c.min_workgroups ? bf16_bounded : bf16_plain).push_back(c);
        std::vector<KernelConfig> fp8_register_fed;  // FP8 only: no bf16 twin
        for (const KernelConfig& c : fp8)
            (c.shared_operands ? fp8_shared : register_fed_wgmma(c) ? fp8_register_fed : fp8_plain).push_back(c);
        CHECK_FALSE(fp8_register_fed.empty());
        CHECK_FALSE(bf16_bounded.empty());  // the occupancy bound: on the bf16 path only
        REQUIRE(bf16_plain.size() == fp8_plain.size());
        REQUIRE(both.size() == fp8.size() + bf16.size());
        for (std::size_t i = 0; i < fp8.size(); ++i) CHECK(both[i] == fp8[i]);  // FP8 first, then the bf16 space
        for (std::size_t i = 0; i < fp8_plain.size(); ++i) {
            INFO(kernel_name(fp8_plain[i]));
            CHECK(fp8_plain[i].mma == MmaPath::fp8);
            KernelConfig twin = fp8_plain[i];
            twin.mma = MmaPath::bf16;
            CHECK(bf16_plain[i] == twin);
        }
        // FP8 shared operands: only warpgroup products on rebased rows (one warpgroup per 64 rows,
        // 64 or 128 wide), each beside its bf16 twin; the 128- and 256-row ones also warp-specialised
        // (_ws: 8 or 12 warps; 128 wide also 192 and, from 64 rows, 256), which has no bf16 twin.
        CHECK_FALSE(fp8_shared.empty());
        int warp_specialised = 0;
        for (const KernelConfig& c : fp8_shared) {
            INFO(kernel_name(c));
            if (c.warp_specialised) {
                ++warp_specialised;
                CHECK((c.tile_m >= 128 || c.tile_n == 256));
                CHECK((!c.fp4_weights || c.tile_n == 256));
                CHECK((!c.weights_read_once || (c.tile_m == 128 && c.tile_n == 256)));
                KernelConfig plain = c;
                plain.warp_specialised = false;
                plain.fp4_weights = false;
                plain.weights_read_once = false;
                plain.warps = c.tile_m / 16;
                plain.tile_n = c.tile_n > 128 ? 128 : c.tile_n;  // 192 and 256 wide: only warp-specialised
                CHECK(std::find(fp8_shared.begin(), fp8_shared.end(), plain) != fp8_shared.end());
                continue;
            }
            CHECK((c.wgmma && reads_rebased_rows(c) && c.warps == c.tile_m / 16 && c.tile_n <= 128));
            KernelConfig twin = c;
            twin.mma = MmaPath::bf16;
            CHECK(std::find(bf16_shared.begin(), bf16_shared.end(), twin) != bf16_shared.end());
        }
        CHECK(warp_specialised > 0);
        for (std::size_t i = 0; i < bf16.size(); ++i) CHECK(both[fp8.size() + i] == bf16[i]);
        // Shared operands (and with them wgmma) only on the bf16 path at tile_k 128, each beside its
        // plain twin; wgmma tiles the other loops do not take (16 warps: 256 rows, or 128 rows of two
        // warpgroups side by side; 8 stage-2 warps on 64 columns, whose warp products would be 8
        // columns wide) stand alone.
        CHECK_FALSE(bf16_shared.empty());
        for (const KernelConfig& c : bf16_shared) {
            INFO(kernel_name(c));
            CHECK((c.tile_k == 128 && c.k_warps == 1 && c.tile_m >= 32 && !c.nontemporal_weights));
            KernelConfig plain = c;
            plain.shared_operands = false;
            plain.wgmma = false;
            const bool twin_expected =
                !c.wgmma || (sort_block_m(c) <= 128 && c.warps <= 8 &&
                             (c.stage == Stage::gate_up || c.tile_n >= 16 * c.warps));
            CHECK(twin_expected == (std::find(bf16_plain.begin(), bf16_plain.end(), plain) != bf16_plain.end()));
        }
    }
    CHECK(EnumerationOptions{}.mma_paths == std::vector<MmaPath>{MmaPath::fp8, MmaPath::bf16});
    CHECK(mma_paths_from_choice("fp8") == std::vector<MmaPath>{MmaPath::fp8});
    CHECK(mma_paths_from_choice("bf16") == std::vector<MmaPath>{MmaPath::bf16});
    CHECK(mma_paths_from_choice("all") == std::vector<MmaPath>{MmaPath::fp8, MmaPath::bf16});
    CHECK_FALSE(mma_paths_from_choice("fp4"));
    CHECK_FALSE(mma_paths_from_choice(""));
}

TEST_CASE("DSv4.1-Flash on the bf16 path: candidates that fit, pruned with the bf16 register model") {
    const EnumerationOptions bf16_only{.mma_paths = {MmaPath::bf16}};
    for (Stage stage : {Stage::gate_up, Stage::down}) {
        for (int tokens : {1, 32, 4096}) {
            const MoeShape shape = dsv41_flash_ep4(tokens);
            const CandidateList list = enumerate_candidates(stage, shape, sm90a(), bf16_only);
            INFO("stage " << stage_number(stage) << " tokens " << tokens);
            REQUIRE_FALSE(list.kept.empty());
            for (const KernelConfig& c : list.kept) {
                CHECK(c.mma == MmaPath::bf16);
                check_fits(c, shape, sm90a());
            }
            const CandidateList all = enumerate_candidates(stage, shape, sm90a());
            const EnumerationOptions fp8_only{.mma_paths = {MmaPath::fp8}};
            CHECK(all.kept.size() == enumerate_candidates(stage, shape, sm90a(), fp8_only).kept.size() + list.kept.size());
        }
    }
}

TEST_CASE("stage 2 offers tile_m = block_m and tile_m = block_m/2 for every sort block") {
    const CandidateList list = enumerate_candidates(Stage::down, dsv41_flash_ep4(2048), sm90a());
    std::set<std::pair<int, int>> tile_and_block;
    for (const KernelConfig& c : list.kept) tile_and_block.insert({c.tile_m, sort_block_m(c)});
    const std::set<std::pair<int, int>> expected = {{16, 16}, {16, 32}, {32, 32},   {32, 64},  {64, 64},
                                                    {64, 128}, {128, 128}, {128, 256}, {256, 256}};
    CHECK(tile_and_block == expected);
}

TEST_CASE("the block_m heuristic prunes with a labelled reason and can be turned off") {
    const MoeShape one_token = dsv41_flash_ep4(1);
    const CandidateList pruned = enumerate_candidates(Stage::gate_up, one_token, sm90a());
    const CandidateList all = enumerate_candidates(Stage::gate_up, one_token, sm90a(), {.heuristics = false});
    auto has_block = [](const CandidateList& l, int block_m) {
        for (const KernelConfig& c : l.kept)
            if (sort_block_m(c) == block_m) return true;
        return false;
    };
    CHECK(has_block(pruned, 16));
    CHECK_FALSE(has_block(pruned, 128));
    CHECK(has_block(all, 128));
    CHECK(all.kept.size() > pruned.kept.size());
    int heuristic = 0;
    for (const PrunedConfig& p : pruned.pruned)
        if (contains(p.reason, "heuristic: block_m")) ++heuristic;
    CHECK(heuristic == int(all.kept.size() - pruned.kept.size()));
    for (const PrunedConfig& p : all.pruned) CHECK_FALSE(contains(p.reason, "heuristic"));

    // At many tokens it is the small blocks that go.
    const CandidateList large = enumerate_candidates(Stage::down, dsv41_flash_ep4(16384), sm90a());
    CHECK_FALSE(has_block(large, 16));
    CHECK(has_block(large, 128));
}

TEST_CASE("a name filter keeps only the matching candidates and says why the others went") {
    const MoeShape shape = dsv41_flash_ep4(4096);
    const CandidateList all = enumerate_candidates(Stage::down, shape, sm90a());
    const CandidateList wgmma = enumerate_candidates(Stage::down, shape, sm90a(), {.names = name_filter("_wgmma")});
    REQUIRE_FALSE(wgmma.kept.empty());
    CHECK(wgmma.kept.size() < all.kept.size());
    for (const KernelConfig& c : wgmma.kept) CHECK(c.wgmma);
    int filtered = 0;
    for (const PrunedConfig& p : wgmma.pruned)
        if (p.reason == "its name does not match --kernels") ++filtered;
    CHECK(filtered == int(all.kept.size() - wgmma.kept.size()));
    CHECK_FALSE(name_filter(""));

    // An empty list says whether --kernels or the shape emptied it.
    const CandidateList none = enumerate_candidates(Stage::down, shape, sm90a(), {.names = name_filter("zzz")});
    REQUIRE(none.kept.empty());
    CHECK(empty_list_reason(Stage::down, none, "sm_90a") ==
          "--kernels matches none of the " + std::to_string(all.kept.size()) +
              " stage-2 kernels that fit this shape on sm_90a");
    const CandidateList unfit{{}, {{all.kept.front(), "tile_n 256 does not divide model_dim 5248"}}};
    CHECK(empty_list_reason(Stage::gate_up, unfit, "sm_90a") == "no stage-1 kernel fits this shape on sm_90a");
    CHECK_THROWS_AS(name_filter("(unclosed"), std::regex_error);
}

TEST_CASE("tiles that do not fit the shape are pruned with the sizes named") {
    MoeShape s = dsv41_flash_ep4(64);
    s.model_dim = 5248;  // 41 x 128: a whole number of K chunks, but not of 256-column tiles
    const CandidateList s2 = enumerate_candidates(Stage::down, s, sm90a(), {.heuristics = false});
    bool tile_n_reason = false;
    for (const PrunedConfig& p : s2.pruned) tile_n_reason |= contains(p.reason, "tile_n 256 does not divide model_dim 5248");
    CHECK(tile_n_reason);
    REQUIRE_FALSE(s2.kept.empty());
    for (const KernelConfig& c : s2.kept) CHECK(c.tile_n != 256);

    s = dsv41_flash_ep4(64);
    s.inter_dim = 128;  // stage 2's K is one chunk: deeper prefetch groups would load nothing
    const CandidateList short_k = enumerate_candidates(Stage::down, s, sm90a(), {.heuristics = false});
    bool tile_k_reason = false;
    for (const PrunedConfig& p : short_k.pruned) tile_k_reason |= contains(p.reason, "tile_k 512 exceeds inter_dim 128");
    CHECK(tile_k_reason);
    REQUIRE_FALSE(short_k.kept.empty());
    for (const KernelConfig& c : short_k.kept) CHECK(c.tile_k == 128);
}

TEST_CASE("shapes no kernel can run are refused before enumeration") {
    struct Case {
        MoeShape shape;
        const char* reason;
    };
    auto with = [](auto change) {
        MoeShape s = dsv41_flash_ep4(16);
        change(s);
        return s;
    };
    const Case cases[] = {
        {with([](MoeShape& s) { s.model_dim = 5100; }), "model_dim 5100 is not a positive multiple of 128"},
        {with([](MoeShape& s) { s.inter_dim = 2336; }), "inter_dim 2336 is not a positive multiple of 128"},
        {with([](MoeShape& s) { s.topk = 97; }), "topk 97"},
        {with([](MoeShape& s) { s.experts = 0; }), "expert 0"},
        {with([](MoeShape& s) { s.tokens = 0; }), "token 0"},
        {with([](MoeShape& s) { s.tokens = 1 << 24; }), "token 16777216"},
    };
    for (const Case& k : cases) {
        const auto err = shape_error(k.shape);
        REQUIRE(err);
        INFO(*err);
        CHECK(contains(*err, k.reason));
        CHECK_THROWS_AS(enumerate_candidates(Stage::gate_up, k.shape, sm90a()), std::invalid_argument);
    }
    CHECK_FALSE(shape_error(dsv41_flash_ep4(16)));
}

TEST_CASE("tighter device limits prune more, with the limit named") {
    const MoeShape shape = dsv41_flash_ep4(4096);
    const CandidateList nv = enumerate_candidates(Stage::down, shape, sm90a());
    auto pruned_for = [](const CandidateList& l, const std::string& what) {
        int n = 0;
        for (const PrunedConfig& p : l.pruned) n += contains(p.reason, what);
        return n;
    };

    DeviceLimits small_shared = sm90a();
    small_shared.max_shared_memory_per_block = 1024;  // stage 2 row tables: 16 B per row
    const CandidateList smem = enumerate_candidates(Stage::down, shape, small_shared);
    CHECK(smem.kept.size() < nv.kept.size());
    CHECK(pruned_for(smem, "shared memory ~2048 B exceeds 1024 B (sm_90a)") > 0);
    for (const KernelConfig& c : smem.kept) CHECK(c.tile_m <= 64);

    DeviceLimits few_registers = sm90a();
    few_registers.max_registers_per_thread = 128;
    const CandidateList regs = enumerate_candidates(Stage::down, shape, few_registers);
    CHECK(regs.kept.size() < nv.kept.size());
    CHECK(pruned_for(regs, "per thread exceed 128 (sm_90a)") > 0);
    for (const KernelConfig& c : regs.kept) check_fits(c, shape, few_registers);

    // CDNA's 512 VGPRs per lane leave room for warp blocks sm_90a's 255 registers do not (compared
    // without the sm_90a-only _wgmma kernels).
    const DeviceLimits gfx942 = *device_limits_for_arch("gfx942");
    const CandidateList amd = enumerate_candidates(Stage::down, shape, gfx942);
    const auto nv_portable = std::count_if(nv.kept.begin(), nv.kept.end(), [](const KernelConfig& c) { return !c.wgmma; });
    CHECK(std::ptrdiff_t(amd.kept.size()) > nv_portable);
    for (const KernelConfig& c : amd.kept) check_fits(c, shape, gfx942);
    CHECK(pruned_for(nv, "per thread exceed 255 (sm_90a)") > 0);
}

TEST_CASE("device presets by arch string") {
    const auto h200 = device_limits_for_arch("sm_90a");
    REQUIRE(h200);
    CHECK(h200->max_shared_memory_per_block == 227 * 1024);
    CHECK(h200->registers_per_block == 65536);
    CHECK(h200->max_registers_per_thread == 255);
    const auto gfx950 = device_limits_for_arch("gfx950");
    REQUIRE(gfx950);
    CHECK(gfx950->max_shared_memory_per_block == 160 * 1024);
    CHECK(gfx950->max_registers_per_thread == 512);
    CHECK(device_limits_for_arch("gfx90a")->max_shared_memory_per_block == 64 * 1024);
    CHECK_FALSE(device_limits_for_arch("sm_80"));
    CHECK(known_archs() == std::vector<std::string>{"sm_90a", "gfx90a", "gfx942", "gfx950"});
}

TEST_CASE("the eight-row twins serve at most 8 tokens, each right after its 16-row tile") {
    const DeviceLimits limits = *device_limits_for_arch("sm_90a");
    for (Stage stage : {Stage::gate_up, Stage::down}) {
        const std::vector<KernelConfig> space = search_space(stage, {MmaPath::fp8});
        for (std::size_t i = 0; i < space.size(); ++i) {
            if (!space[i].eight_rows) continue;
            REQUIRE(i > 0);
            KernelConfig plain = space[i];
            plain.eight_rows = false;
            CHECK(space[i - 1] == plain);
        }
    }
    const KernelConfig r8 = parse("moetune_moe1_afp8_wfp4_bf16_t16x64x512_w4_nt_wgmma_r8_gui");
    for (int tokens : {1, 2, 8}) CHECK_FALSE(static_prune_reason(r8, dsv41_flash_ep4(tokens), limits));
    const auto reason = static_prune_reason(r8, dsv41_flash_ep4(16), limits);
    REQUIRE(reason);
    CHECK(*reason == "r8 serves at most 8 tokens (its products cover a tile's first 8 rows, all that so few tokens fill)");
    CHECK(estimate_resources(r8).registers_per_thread < estimate_resources(parse(
                                                            "moetune_moe1_afp8_wfp4_bf16_t16x64x512_w4_nt_wgmma_gui"))
                                                            .registers_per_thread);
}

TEST_CASE("the occupancy bound keeps tiles within 32 registers of its cap, and names the cap when it prunes") {
    const DeviceLimits limits = *device_limits_for_arch("sm_90a");
    // 4 workgroups of 128 threads share 64K registers: 128 a thread; unbounded, one workgroup's 512.
    const KernelConfig fits = parse("moetune_moe1_afp8_wfp4_bf16_t16x256x128_w4_occ4_nt_mbf16_gui_fp8");
    CHECK(occupancy_register_cap(fits, limits) == 128);
    CHECK(occupancy_register_cap(parse("moetune_moe1_afp8_wfp4_bf16_t16x256x128_w4_nt_mbf16_gui_fp8"), limits) == 512);
    CHECK(estimate_resources(fits).registers_per_thread == 158);
    CHECK_FALSE(static_prune_reason(fits, dsv41_flash_ep4(128), limits));
    // 32x256 (32x64 warp blocks) wants ~202: far more spill than the extra warps give back.
    const auto reason = static_prune_reason(parse("moetune_moe1_afp8_wfp4_bf16_t32x256x128_w4_occ4_nt_mbf16_gui_fp8"),
                                            dsv41_flash_ep4(512), limits);
    REQUIRE(reason);
    CHECK(*reason == "registers ~202 per thread exceed the 128 of occ4 by more than 32 (sm_90a)");
}
