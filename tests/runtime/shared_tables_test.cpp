// TunedTables over the real AITER tables in ../shared/aiter-tables: every tuned table loads on its
// own, and a row of DeepSeek-V4's table is found by AITER's lookup with its gfx950 key.
#include <filesystem>
#include <string>

#include "moetune/tuned_tables.h"
#include "support/catch.hpp"
#include "support/test_env.h"

using moetune::MoeShapeKey;
using moetune::TunedTables;

namespace {

std::string aiter_table(const std::string& name) {
    return (moetune::test::shared_dir() / "aiter-tables" / name).string();
}

}  // namespace

TEST_CASE("every tuned AITER table loads", "[shared]") {
    for (const auto& entry : std::filesystem::directory_iterator(moetune::test::shared_dir() / "aiter-tables")) {
        const std::string name = entry.path().filename().string();
        if (name.find("untuned") != std::string::npos) continue;
        INFO(name);
        CHECK(TunedTables::load({entry.path().string()}).rows() > 0);
    }
}

TEST_CASE("a row of the DeepSeek-V4 a8w4 table is looked up by its key", "[shared]") {
    // Line 2: gfx950, 256, token 1, 7168, 512, 384 experts, top-6, Silu, a8w4 per_1x32.
    const TunedTables t = TunedTables::load({aiter_table("dsv4_fp8fp4_tuned_fmoe.csv")});
    MoeShapeKey dsv4;
    dsv4.model_dim = 7168;
    dsv4.inter_dim = 512;
    dsv4.experts = 384;
    dsv4.topk = 6;
    const auto plan = t.lookup(dsv4, 1, "gfx950", 256);
    REQUIRE(plan);
    CHECK(plan->source == aiter_table("dsv4_fp8fp4_tuned_fmoe.csv") + ":2");
    CHECK(plan->block_m == 32);
    CHECK(plan->kernel_name1 == "flydsl_moe1_afp8_wfp4_bf16_t32x64x256_w4_gui_kw4_fp8");
    CHECK(plan->kernel_name2 == "flydsl_moe2_afp8_wfp4_bf16_t32x256x256_reduce_bnt2_persist");
    CHECK_FALSE(t.lookup(dsv4, 1, "sm_90", 132));  // tuned on MI355X, not looked up elsewhere
}
