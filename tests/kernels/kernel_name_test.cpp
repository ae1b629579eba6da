// The kernel-name grammar: the examples, exact round trips over the whole search space,
// and one rejection per way a name can be wrong.
#include <initializer_list>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kernels/candidates.h"
#include "kernels/kernel_name.h"
#include "kernels/resource_model.h"
#include "support/catch.hpp"

using namespace moetune::kernels;

namespace {

// Each of names is refused, with a reason.
void check_refused(std::initializer_list<const char*> names) {
    for (const char* bad : names) {
        std::string why;
        INFO(bad);
        CHECK_FALSE(parse_kernel_name(bad, &why));
        CHECK_FALSE(why.empty());
    }
}

}  // namespace

TEST_CASE("the issue's stage-1 example parses to its fields and prints back unchanged") {
    const std::string name = "moetune_moe1_afp8_wfp4_bf16_t32x128x256_w4_gui_fp8";
    std::string why;
    const auto c = parse_kernel_name(name, &why);
    INFO(why);
    REQUIRE(c);
    CHECK(c->stage == Stage::gate_up);
    CHECK(c->act == DType::fp8_e4m3);
    CHECK(c->weight == DType::fp4_e2m1);
    CHECK(c->out == DType::bf16);
    CHECK(c->tile_m == 32);
    CHECK(c->tile_n == 128);
    CHECK(c->tile_k == 256);
    CHECK(c->warps == 4);
    CHECK_FALSE(c->nontemporal_weights);
    CHECK(c->fused_mxfp8_out);
    CHECK(sort_block_m(*c) == 32);
    CHECK(kernel_name(*c) == name);
}

TEST_CASE("the issue's stage-2 example parses to its fields and prints back unchanged") {
    const std::string name = "moetune_moe2_afp8_wfp4_bf16_t64x256x128_atomic_nt_sbm64";
    std::string why;
    const auto c = parse_kernel_name(name, &why);
    INFO(why);
    REQUIRE(c);
    CHECK(c->stage == Stage::down);
    CHECK(c->tile_m == 64);
    CHECK(c->tile_n == 256);
    CHECK(c->tile_k == 128);
    CHECK(c->mode == Stage2Mode::atomic);
    CHECK(c->nontemporal_weights);
    CHECK(c->warps == 8);
    CHECK(c->sort_block == 64);
    CHECK(sort_block_m(*c) == 64);
    CHECK(kernel_name(*c) == name);
}

TEST_CASE("absent tokens mean the defaults, and a default config prints the shortest name") {
    KernelConfig s1;
    CHECK(kernel_name(s1) == "moetune_moe1_afp8_wfp4_bf16_t32x128x256_gui");
    KernelConfig s2;
    s2.stage = Stage::down;
    CHECK(kernel_name(s2) == "moetune_moe2_afp8_wfp4_bf16_t32x128x256_atomic");
    CHECK(parse_kernel_name("moetune_moe1_afp8_wfp4_bf16_t32x128x256_gui") == s1);
    CHECK(parse_kernel_name("moetune_moe2_afp8_wfp4_bf16_t32x128x256_atomic") == s2);
}

TEST_CASE("every suffix token is spelled in the fixed order") {
    KernelConfig s1;
    s1.tile_m = 16;
    s1.tile_n = 64;
    s1.tile_k = 128;
    s1.warps = 2;
    s1.nontemporal_weights = true;
    s1.fused_mxfp8_out = true;
    CHECK(kernel_name(s1) == "moetune_moe1_afp8_wfp4_bf16_t16x64x128_w2_nt_gui_fp8");

    KernelConfig s2;
    s2.stage = Stage::down;
    s2.mode = Stage2Mode::reduce;
    s2.warps = 4;
    s2.nontemporal_weights = true;
    s2.sort_block = 64;
    CHECK(kernel_name(s2) == "moetune_moe2_afp8_wfp4_bf16_t32x128x256_reduce_w4_nt_sbm64");
    CHECK(parse_kernel_name(kernel_name(s1)) == s1);
    CHECK(parse_kernel_name(kernel_name(s2)) == s2);
}

TEST_CASE("_mbf16 selects the bf16 MMA path in both stages, after _nt and before _gui / _sbm") {
    const std::string s1 = "moetune_moe1_afp8_wfp4_bf16_t16x128x512_w2_nt_mbf16_gui_fp8";
    const std::string s2 = "moetune_moe2_afp8_wfp4_bf16_t16x128x512_atomic_w4_nt_mbf16_sbm32";
    for (const std::string& name : {s1, s2}) {
        std::string why;
        const auto c = parse_kernel_name(name, &why);
        INFO(name << ": " << why);
        REQUIRE(c);
        CHECK(c->mma == MmaPath::bf16);
        CHECK(c->nontemporal_weights);
        CHECK(kernel_name(*c) == name);
    }
    // Absent means the FP8 path; the bf16 twin differs in that field only.
    const auto fp8 = parse_kernel_name("moetune_moe1_afp8_wfp4_bf16_t16x128x512_w2_nt_gui_fp8");
    REQUIRE(fp8);
    CHECK(fp8->mma == MmaPath::fp8);
    KernelConfig twin = *fp8;
    twin.mma = MmaPath::bf16;
    CHECK(kernel_name(twin) == s1);
    CHECK(kernel_name(KernelConfig{.mma = MmaPath::bf16}) == "moetune_moe1_afp8_wfp4_bf16_t32x128x256_mbf16_gui");
}

TEST_CASE("_kw{n} splits the warps into K-groups, after _gui and before _fp8 / _sbm as in AITER") {
    const std::string s1 = "moetune_moe1_afp8_wfp4_bf16_t16x128x128_nt_mbf16_gui_kw4_fp8";
    const std::string s2 = "moetune_moe2_afp8_wfp4_bf16_t16x128x256_atomic_nt_kw2_sbm32";
    for (const std::string& name : {s1, s2}) {
        std::string why;
        const auto c = parse_kernel_name(name, &why);
        INFO(name << ": " << why);
        REQUIRE(c);
        CHECK(c->warps == 8);
        CHECK(kernel_name(*c) == name);
    }
    CHECK(parse_kernel_name(s1)->k_warps == 4);
    CHECK(parse_kernel_name(s2)->k_warps == 2);
    // One K-group's warps split the tile: 8 warps in 4 groups leave 2 for 16x128 (64-column blocks).
    const auto grid = warp_grid(*parse_kernel_name(s1));
    REQUIRE(grid);
    CHECK(grid->warps_m * grid->warps_n == 2);
    CHECK(KernelConfig{}.k_warps == 1);
    CHECK(kernel_name(KernelConfig{.k_warps = 2}) == "moetune_moe1_afp8_wfp4_bf16_t32x128x256_gui_kw2");
}

TEST_CASE("_occ{n} bounds the occupancy: right after _w, before _nt") {
    const std::string s1 = "moetune_moe1_afp8_wfp4_bf16_t16x256x128_w4_occ4_nt_mbf16_gui_fp8";
    const std::string s2 = "moetune_moe2_afp8_wfp4_bf16_t16x256x128_atomic_w4_occ4_nt_mbf16";
    for (const std::string& name : {s1, s2}) {
        std::string why;
        const auto c = parse_kernel_name(name, &why);
        INFO(name << ": " << why);
        REQUIRE(c);
        CHECK(c->min_workgroups == 4);
        CHECK(c->warps == 4);
        CHECK(kernel_name(*c) == name);
    }
    CHECK(KernelConfig{}.min_workgroups == 0);
    CHECK(kernel_name(KernelConfig{.warps = 4, .min_workgroups = 2}) ==
          "moetune_moe1_afp8_wfp4_bf16_t32x128x256_w4_occ2_gui");
    const std::pair<const char*, const char*> bad[] = {
        {"moetune_moe1_afp8_wfp4_bf16_t16x256x128_w4_occ1_gui", "occ1 must ask for 2 to 16"},
        {"moetune_moe1_afp8_wfp4_bf16_t16x256x128_w4_occ0_gui", "not the canonical name"},
        {"moetune_moe1_afp8_wfp4_bf16_t16x256x128_w4_occ17_gui", "occ17 must ask for 2 to 16"},
        {"moetune_moe1_afp8_wfp4_bf16_t16x256x128_occ16_gui", "of at most 64 warps together"},
        {"moetune_moe1_afp8_wfp4_bf16_t16x256x128_w4_occ04_gui", "unknown token 'occ04'"},
        {"moetune_moe1_afp8_wfp4_bf16_t16x256x128_w4_nt_occ4_gui", "token 'occ4' must come before 'nt'"},
        {"moetune_moe1_afp8_wfp4_bf16_t16x256x128_occ4_w4_gui", "token 'w4' must come before 'occ4'"},
    };
    for (const auto& [name, reason] : bad) {
        std::string why;
        INFO(name);
        CHECK_FALSE(parse_kernel_name(name, &why));
        CHECK(why.find(reason) != std::string::npos);
    }
}

TEST_CASE("_smem stages the operands in shared memory: after _nt, before the MMA path") {
    const std::string s1 = "moetune_moe1_afp8_wfp4_bf16_t128x128x128_smem_mbf16_gui_fp8";
    const std::string s2 = "moetune_moe2_afp8_wfp4_bf16_t64x128x128_atomic_w4_smem_mbf16_sbm128";
    for (const std::string& name : {s1, s2}) {
        std::string why;
        const auto c = parse_kernel_name(name, &why);
        INFO(name << ": " << why);
        REQUIRE(c);
        CHECK(c->shared_operands);
        CHECK(kernel_name(*c) == name);
    }
    CHECK_FALSE(KernelConfig{}.shared_operands);
}

TEST_CASE("_wgmma follows _smem; warpgroups of 64 rows set the warps and the warp grid") {
    struct Case {
        const char* name;
        int warps_m, warps_n;
    };
    for (const Case& k : {Case{"moetune_moe1_afp8_wfp4_bf16_t128x128x128_smem_wgmma_mbf16_gui_fp8", 8, 1},
                          Case{"moetune_moe2_afp8_wfp4_bf16_t64x64x128_atomic_w4_smem_wgmma_mbf16_sbm128", 4, 1},
                          Case{"moetune_moe2_afp8_wfp4_bf16_t256x128x128_atomic_w16_smem_wgmma_mbf16", 16, 1},
                          // Twice the warps: two warpgroups side by side, each over half the width.
                          Case{"moetune_moe1_afp8_wfp4_bf16_t128x256x128_w16_smem_wgmma_mbf16_gui", 8, 2},
                          Case{"moetune_moe2_afp8_wfp4_bf16_t64x256x128_reduce_smem_wgmma_mbf16", 4, 2}}) {
        std::string why;
        const auto c = parse_kernel_name(k.name, &why);
        INFO(k.name << ": " << why);
        REQUIRE(c);
        CHECK(c->wgmma);
        CHECK(kernel_name(*c) == k.name);
        const auto grid = warp_grid(*c);
        REQUIRE(grid);
        CHECK(grid->warps_m == k.warps_m);
        CHECK(grid->warps_n == k.warps_n);
    }
}

TEST_CASE("_ws follows _wgmma: the warp-specialised FP8 loop, 4 warps a consumer warpgroup (128 rows, 64 at 256 wide, two side by side at 64 x 256) plus 4 producers") {
    struct Case {
        const char* name;
        int warps;
    };
    for (const Case& k : {Case{"moetune_moe1_afp8_wfp4_bf16_t256x128x128_w12_smem_wgmma_ws_gui_fp8", 12},
                          Case{"moetune_moe2_afp8_wfp4_bf16_t128x64x128_atomic_smem_wgmma_ws", 8},
                          Case{"moetune_moe2_afp8_wfp4_bf16_t64x128x128_reduce_smem_wgmma_ws_sbm128", 8},
                          Case{"moetune_moe1_afp8_wfp4_bf16_t128x256x128_w12_smem_wgmma_ws_gui_fp8", 12},
                          Case{"moetune_moe2_afp8_wfp4_bf16_t64x256x128_atomic_w12_smem_wgmma_ws", 12}}) {
        std::string why;
        const auto c = parse_kernel_name(k.name, &why);
        INFO(k.name << ": " << why);
        REQUIRE(c);
        CHECK(c->warp_specialised);
        CHECK(c->warps == k.warps);
        CHECK(kernel_name(*c) == k.name);
        const auto grid = warp_grid(*c);  // the epilogue's 16-row blocks
        REQUIRE(grid);
        CHECK(grid->warps_m == c->tile_m / 16);
        CHECK(grid->warps_n == (c->tile_m == 64 && c->tile_n == 256 ? 2 : 1));  // side by side: either half
    }
    check_refused({"moetune_moe1_afp8_wfp4_bf16_t256x128x128_w16_smem_wgmma_ws_gui",      // 12 warps
                   "moetune_moe1_afp8_wfp4_bf16_t128x128x128_smem_wgmma_ws_mbf16_gui",   // FP8 only
                   "moetune_moe1_afp8_wfp4_bf16_t128x256x128_smem_wgmma_ws_gui",         // 12 warps
                   "moetune_moe1_afp8_wfp4_bf16_t64x256x128_smem_wgmma_ws_gui",          // 12 warps (side by side)
                   "moetune_moe1_afp8_wfp4_bf16_t256x256x128_w16_smem_wgmma_ws_gui",     // 64-128 rows
                   "moetune_moe1_afp8_wfp4_bf16_t256x128x128_w20_smem_wgmma_ws_gui",     // one team at 256 rows
                   "moetune_moe1_afp8_wfp4_bf16_t128x256x128_w20_smem_wgmma_ws_gui",     // one team at 128 x 256
                   "moetune_moe1_afp8_wfp4_bf16_t128x128x128_w12_smem_wgmma_ws_gui",     // 8 warps
                   "moetune_moe1_afp8_wfp4_bf16_t128x512x128_w12_smem_wgmma_ws_gui",     // 256 wide
                   "moetune_moe1_afp8_wfp4_bf16_t128x128x128_smem_ws_gui",               // with wgmma
                   "moetune_moe2_afp8_wfp4_bf16_t32x128x128_atomic_smem_wgmma_ws",       // 64+ rows
                   "moetune_moe1_afp8_wfp4_bf16_t128x128x128_smem_wgmma_gui_ws"});      // order
}

TEST_CASE("_ro follows _ws and _f4w: weights read once copied evict-first, a knob of the warp-specialised loop only") {
    for (const char* name : {"moetune_moe1_afp8_wfp4_bf16_t128x256x128_w12_smem_wgmma_ws_ro_gui_fp8",
                             "moetune_moe2_afp8_wfp4_bf16_t128x256x128_atomic_w12_smem_wgmma_ws_f4w_ro_sbm256"}) {
        std::string why;
        const auto c = parse_kernel_name(name, &why);
        INFO(name << ": " << why);
        REQUIRE(c);
        CHECK(c->weights_read_once);
        CHECK(c->warp_specialised);
        CHECK(kernel_name(*c) == name);
    }
    check_refused({"moetune_moe1_afp8_wfp4_bf16_t128x128x128_smem_wgmma_ro_gui",              // without _ws
                   "moetune_moe1_afp8_wfp4_bf16_t128x256x128_w12_smem_wgmma_ws_ro_f4w_gui",    // order
                   "moetune_moe2_afp8_wfp4_bf16_t128x256x128_atomic_w12_smem_wgmma_ro_ws"});  // order
}

TEST_CASE("_mxr follows _ro: register-fed kernels reading MXFP8 rows; register-fed stage 1 may fuse its MXFP8 output") {
    for (const char* name : {"moetune_moe1_afp8_wfp4_bf16_t16x64x512_w4_nt_wgmma_mxr_gui",
                             "moetune_moe1_afp8_wfp4_bf16_t16x64x512_w4_nt_wgmma_gui_fp8",
                             "moetune_moe2_afp8_wfp4_bf16_t16x128x256_atomic_nt_wgmma_mxr",
                             "moetune_moe2_afp8_wfp4_bf16_t32x256x256_reduce_w16_nt_wgmma_mxr_sbm64"}) {
        std::string why;
        const auto c = parse_kernel_name(name, &why);
        INFO(name << ": " << why);
        REQUIRE(c);
        CHECK(register_fed_wgmma(*c));
        CHECK(c->mx_rows == reads_mx_rows(*c));
        CHECK_FALSE((reads_rebased_rows(*c) && c->mx_rows));
        CHECK(reads_interleaved_rows(*c) == !c->mx_rows);
        CHECK(weight_copy(*c) == WeightCopy::e4m3_coded_fp4);
        CHECK(kernel_name(*c) == name);
    }
    check_refused({"moetune_moe2_afp8_wfp4_bf16_t16x128x256_atomic_nt_mxr",          // without _wgmma
                   "moetune_moe2_afp8_wfp4_bf16_t64x128x128_atomic_w4_smem_wgmma_mxr",  // shared operands
                   "moetune_moe2_afp8_wfp4_bf16_t16x128x256_atomic_nt_mxr_wgmma"});  // order
}

TEST_CASE("_r8 follows _mxr: register-fed FP8 products of 16-row tiles over their first 8 rows") {
    for (const char* name : {"moetune_moe1_afp8_wfp4_bf16_t16x64x512_w4_nt_wgmma_r8_gui",
                             "moetune_moe1_afp8_wfp4_bf16_t16x64x1024_w4_occ4_nt_wgmma_mxr_r8_gui_fp8",
                             "moetune_moe2_afp8_wfp4_bf16_t16x128x256_atomic_nt_wgmma_r8",
                             "moetune_moe2_afp8_wfp4_bf16_t16x128x256_reduce_nt_wgmma_r8_sbm32"}) {
        std::string why;
        const auto c = parse_kernel_name(name, &why);
        INFO(name << ": " << why);
        REQUIRE(c);
        CHECK(c->eight_rows);
        CHECK(register_fed_wgmma(*c));
        CHECK(weight_copy(*c) == WeightCopy::e4m3_coded_fp4);
        CHECK(kernel_name(*c) == name);
    }
    check_refused({"moetune_moe2_afp8_wfp4_bf16_t32x256x256_atomic_w16_nt_wgmma_r8",   // 32-row tiles
                   "moetune_moe2_afp8_wfp4_bf16_t16x128x256_atomic_nt_r8",             // without _wgmma
                   "moetune_moe1_afp8_wfp4_bf16_t64x128x128_w4_smem_wgmma_r8_gui",     // shared operands
                   "moetune_moe2_afp8_wfp4_bf16_t16x32x128_atomic_w4_nt_r8_gemv",      // _gemv
                   "moetune_moe2_afp8_wfp4_bf16_t16x128x256_atomic_nt_wgmma_r8_mxr"});  // order
}

TEST_CASE("_gemv follows _mxr: the few-token GEMVs on f16 products, 16-row tiles, K split among the warps") {
    struct Case {
        const char* name;
        int warps_a_tile;
    };
    for (const Case& t : {Case{"moetune_moe1_afp8_wfp4_bf16_t16x64x256_w16_nt_gemv_gui", 4},
                          Case{"moetune_moe1_afp8_wfp4_bf16_t16x64x512_w4_occ4_nt_smem_gemv_gui", 1},
                          Case{"moetune_moe2_afp8_wfp4_bf16_t16x16x128_atomic_w2_nt_gemv", 2},
                          Case{"moetune_moe2_afp8_wfp4_bf16_t16x64x256_atomic_w16_nt_smem_gemv", 4}}) {
        std::string why;
        const auto c = parse_kernel_name(t.name, &why);
        INFO(t.name << ": " << why);
        REQUIRE(c);
        CHECK(c->gemv);
        CHECK(reads_f16_rows(*c));
        CHECK(weight_copy(*c) == WeightCopy::f16_tiles);
        CHECK(n_tiles_fastest(*c));
        CHECK(warps_per_gemv_tile(*c) == t.warps_a_tile);
        CHECK(kernel_name(*c) == t.name);
    }
    check_refused({"moetune_moe1_afp8_wfp4_bf16_t16x64x256_w16_gemv_gui",            // without _nt
                   "moetune_moe1_afp8_wfp4_bf16_t32x64x256_w16_nt_gemv_gui",         // tile_m 32
                   "moetune_moe1_afp8_wfp4_bf16_t16x128x256_w16_nt_gemv_gui",        // two MX blocks
                   "moetune_moe1_afp8_wfp4_bf16_t16x64x256_w2_nt_gemv_gui",          // 2 warps, 4 tiles
                   "moetune_moe1_afp8_wfp4_bf16_t16x64x256_w16_nt_gemv_gui_fp8",     // writes f16 rows
                   "moetune_moe1_afp8_wfp4_bf16_t16x64x1024_w16_nt_gemv_gui",        // tile_k 1024
                   "moetune_moe2_afp8_wfp4_bf16_t16x16x256_reduce_w2_nt_gemv",       // reduce
                   "moetune_moe2_afp8_wfp4_bf16_t16x128x256_atomic_w8_nt_gemv",      // 8 tiles
                   "moetune_moe2_afp8_wfp4_bf16_t16x16x256_atomic_w2_nt_wgmma_gemv",  // with wgmma
                   "moetune_moe2_afp8_wfp4_bf16_t16x16x256_atomic_w2_nt_gemv_mbf16"});  // bf16 path
}

TEST_CASE("every config of the search space round-trips through its name, and names are unique") {
    for (Stage stage : {Stage::gate_up, Stage::down}) {
        std::set<std::string> names;
        const std::vector<KernelConfig> space = search_space(stage, {MmaPath::fp8, MmaPath::bf16});
        for (const KernelConfig& c : space) {
            const std::string name = kernel_name(c);
            std::string why;
            const auto back = parse_kernel_name(name, &why);
            INFO(name << ": " << why);
            REQUIRE(back);
            CHECK(*back == c);
            CHECK(names.insert(name).second);
        }
        CHECK(names.size() == space.size());
    }
}

TEST_CASE("malformed names are rejected with a reason") {
    struct Case {
        const char* name;
        const char* reason;
    };
    const Case cases[] = {
        {"", "empty token"},
        {"flydsl_moe1_afp8_wfp4_bf16_t32x128x256_w4_gui_fp8", "expected moetune_moe"},
        {"moetune_moe3_afp8_wfp4_bf16_t32x128x256", "unknown stage"},
        {"moetune_moe1_afp16_wfp4_bf16_t32x128x256", "bad activation dtype"},
        {"moetune_moe1_afp8_fp4_bf16_t32x128x256", "bad weight dtype"},
        {"moetune_moe1_afp8_wfp4_f16_t32x128x256", "bad output dtype"},
        {"moetune_moe1_abf16_wfp4_bf16_t32x128x256_gui", "activation dtype bf16 is not implemented"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128", "bad tile"},
        {"moetune_moe1_afp8_wfp4_bf16_t032x128x256", "bad tile"},
        {"moetune_moe1_afp8_wfp4_bf16_32x128x256", "bad tile"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x256__gui", "empty token"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_gui_", "empty token"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_xcd4", "unknown token 'xcd4'"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_w04", "unknown token 'w04'"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_gui_w4", "'w4' must come before 'gui'"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_fp8_gui", "'gui' must come before 'fp8'"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_w4_w4_gui", "repeats"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_w4_nt_w2_gui", "repeats"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_w8_gui", "canonical"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_w4", "need _gui"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_fp8", "need _gui"},
        // Tokens of knobs the kernels do not have (pipeline depth, persistent scheduling) are unknown.
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_st2_gui", "unknown token 'st2'"},
        {"moetune_moe2_afp8_wfp4_bf16_t32x128x256_atomic_persist", "unknown token 'persist'"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_atomic", "belongs in stage-2 names only"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_sbm64", "belongs in stage-2 names only"},
        {"moetune_moe2_afp8_wfp4_bf16_t32x128x256_atomic_gui", "belongs in stage-1 names only"},
        {"moetune_moe2_afp8_wfp4_bf16_t64x256x128_nt", "need _atomic or _reduce"},
        {"moetune_moe2_afp8_wfp4_bf16_t64x256x128_nt_atomic", "'atomic' must come before 'nt'"},
        {"moetune_moe2_afp8_wfp4_bf16_t64x256x128_atomic_reduce", "repeats"},
        {"moetune_moe2_afp8_wfp4_bf16_t64x256x128_atomic_sbm32", "must be tile_m or 2*tile_m"},
        {"moetune_moe2_afp8_wfp4_bf16_t256x256x128_atomic_sbm512", "not a moe_sorting block size"},
        {"moetune_moe1_afp8_wfp4_bf16_t24x128x256_gui", "tile_m 24"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x100x256_gui", "tile_n 100 must be a multiple of 32"},
        {"moetune_moe2_afp8_wfp4_bf16_t32x100x256_atomic", "tile_n 100 must be a multiple of 8"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x96_gui", "tile_k 96 is not one of 128, 256, 512"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x384_gui", "tile_k 384 is not one of 128, 256, 512, 1024"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x1024_gui", "tile_k 1024 (8 K chunks in flight) is for register-fed"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x96x256_gui_fp8", "tile_n 96 must be a multiple of 64"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_w3_gui", "warps 3 must be a power of two"},
        // The MMA path token: _m{fp8|bf16}, fp8 the default, between _nt and _gui / _sbm.
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_mfp8_gui", "canonical"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_mfp4_gui", "unknown token 'mfp4'"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_bf16_gui", "unknown token 'bf16'"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_gui_mbf16", "'mbf16' must come before 'gui'"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_mbf16_nt_gui", "'nt' must come before 'mbf16'"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_mbf16_mbf16_gui", "repeats"},
        {"moetune_moe2_afp8_wfp4_bf16_t32x128x256_atomic_sbm64_mbf16", "'mbf16' must come before 'sbm64'"},
        {"moetune_moe2_afp8_wfp4_bf16_t32x128x256_mbf16_atomic", "'atomic' must come before 'mbf16'"},
        // K-groups: _kw{1|2|4} dividing the warps, after _gui, before _fp8 / _sbm.
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_gui_kw1", "canonical"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_gui_kw3", "kw3 is not one of 1, 2, 4"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_w2_gui_kw4", "does not divide the 2 warps"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_kw2_gui", "'gui' must come before 'kw2'"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_gui_fp8_kw2", "'kw2' must come before 'fp8'"},
        {"moetune_moe2_afp8_wfp4_bf16_t32x128x256_atomic_sbm64_kw2", "'kw2' must come before 'sbm64'"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_gui_kw02", "unknown token 'kw02'"},
        // Shared operands: the bf16 path at tile_k 128 without K-groups; after _nt, before _m.
        {"moetune_moe1_afp8_wfp4_bf16_t64x128x128_smem_gui", "smem on the FP8 path needs wgmma"},
        {"moetune_moe1_afp8_wfp4_bf16_t256x64x128_w16_smem_wgmma_gui", "a whole weight vector per thread"},
        {"moetune_moe1_afp8_wfp4_bf16_t64x128x256_smem_mbf16_gui", "smem (shared operands) needs"},
        {"moetune_moe1_afp8_wfp4_bf16_t64x128x128_smem_mbf16_gui_kw2", "smem (shared operands) needs"},
        {"moetune_moe1_afp8_wfp4_bf16_t64x128x128_mbf16_smem_gui", "'smem' must come before 'mbf16'"},
        {"moetune_moe1_afp8_wfp4_bf16_t64x128x128_smem_nt_mbf16_gui", "'nt' must come before 'smem'"},
        {"moetune_moe1_afp8_wfp4_bf16_t64x128x128_w4_wgmma_mbf16_gui", "wgmma without smem (register-fed FP8 products) needs the fp8 path"},
        {"moetune_moe1_afp8_wfp4_bf16_t64x128x128_w4_smem_wgmma_mxr_gui", "mxr (MXFP8 rows) needs register-fed"},
        {"moetune_moe2_afp8_wfp4_bf16_t16x128x128_atomic_nt_wgmma", "tile_k 256, 512 or 1024"},
        {"moetune_moe2_afp8_wfp4_bf16_t16x128x256_atomic_w4_nt_wgmma", "tile_n / 16 warps"},
        {"moetune_moe2_afp8_wfp4_bf16_t64x128x256_atomic_nt_wgmma", "tile_m 16 or 32"},
        {"moetune_moe1_afp8_wfp4_bf16_t64x64x128_smem_wgmma_mbf16_gui", "wgmma needs smem, tile_n 64, 128 or 256 and warpgroups of 64 rows"},
        {"moetune_moe1_afp8_wfp4_bf16_t64x128x128_w16_smem_wgmma_mbf16_gui", "wgmma needs smem, tile_n 64, 128 or 256 and warpgroups of 64 rows"},
        {"moetune_moe1_afp8_wfp4_bf16_t128x128x128_w16_smem_wgmma_mbf16_gui", "side by side on 256-wide tiles"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x128_w2_smem_wgmma_mbf16_gui", "wgmma needs"},
        // Swapped (tile_m 16 or 32): one warp per 16 weight rows, at most 8 tile_m of them, no fused output.
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x128_w4_smem_wgmma_mbf16_gui", "tile_n / 16 warps"},
        {"moetune_moe2_afp8_wfp4_bf16_t16x256x128_atomic_w16_smem_wgmma_mbf16", "tile_n at most 8 tile_m"},
        {"moetune_moe1_afp8_wfp4_bf16_t32x128x128_smem_wgmma_mbf16_gui_fp8", "no fused fp8 output"},
        {"moetune_moe1_afp8_wfp4_bf16_t64x128x128_w4_wgmma_smem_mbf16_gui", "'smem' must come before 'wgmma'"},
    };
    for (const Case& k : cases) {
        std::string why;
        INFO(k.name);
        CHECK_FALSE(parse_kernel_name(k.name, &why));
        INFO("reason: " << why);
        CHECK(why.find(k.reason) != std::string::npos);
        CHECK_FALSE(parse_kernel_name(k.name));  // without a reason pointer too
    }
}

TEST_CASE("kernel_name refuses a config that is not a kernel") {
    KernelConfig c;
    c.tile_m = 24;
    CHECK_THROWS_AS(kernel_name(c), std::invalid_argument);
    KernelConfig stage1_with_sbm;
    stage1_with_sbm.sort_block = 64;
    CHECK_THROWS_AS(kernel_name(stage1_with_sbm), std::invalid_argument);
}

TEST_CASE("block_m pairing: stage 1 tile_m, stage 2 sbm or tile_m") {
    auto parse = [](const char* n) {
        std::string why;
        const auto c = parse_kernel_name(n, &why);
        INFO(n << ": " << why);
        REQUIRE(c);
        return *c;
    };
    CHECK(sort_block_m(parse("moetune_moe1_afp8_wfp4_bf16_t64x128x256_gui_fp8")) == 64);
    CHECK(sort_block_m(parse("moetune_moe2_afp8_wfp4_bf16_t32x128x256_atomic")) == 32);
    CHECK(sort_block_m(parse("moetune_moe2_afp8_wfp4_bf16_t32x128x256_atomic_sbm64")) == 64);
    CHECK(sort_block_m(parse("moetune_moe2_afp8_wfp4_bf16_t32x128x256_atomic_sbm32")) == 32);
}
