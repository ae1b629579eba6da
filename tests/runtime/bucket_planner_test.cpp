// BucketPlanner, FusedMoe's choice of kernels per bucket, without a GPU: the tuned row when the
// device's key finds one, else kernels::default_config at the bucket, logged once per bucket; rows
// of other kernel families pass over to the default; a tuned kernel that cannot run the shape,
// reads rebased rows wider than FusedMoe quantises to, or a pair whose stage 1 cannot hand its
// output to its stage 2, is a TableError naming the row.
#include <fstream>
#include <string>
#include <vector>

#include "data_gpu/mxfp8_quant_gpu.h"
#include "kernels/device_limits.h"
#include "kernels/kernel_name.h"
#include "kernels/shape_heuristics.h"
#include "runtime/bucket_planner.h"
#include "runtime_fixtures.h"
#include "support/catch.hpp"
#include "support/test_env.h"
#include "support/thrown_message.h"

using namespace moetune;
using moetune::test::contains;
using moetune::test::runtime_fixture;

namespace {

kernels::DeviceLimits h200() {
    kernels::DeviceLimits limits = *kernels::device_limits_for_arch("sm_90a");
    limits.multiprocessors = 132;
    return limits;
}

struct Planner {
    std::vector<std::string> lines;
    runtime::BucketPlanner planner;

    explicit Planner(TunedTables tables, MoeShapeKey shape = test::dsv41_flash_key())
        : planner(std::move(shape), std::move(tables), {"sm_90", 132}, h200(),
                  [this](const std::string& line) { lines.push_back(line); }) {}
};

// Writes a table of one row at 16 tokens (block_m 16) for DSv4.1-Flash with these dims, naming these kernels.
void write_one_row_table(const std::string& path, int model_dim, int inter_dim, const std::string& kernel1,
                         const std::string& kernel2, int token = 16) {
    const std::string fixture = test::read_text(runtime_fixture("sm90_b.csv"));
    std::ofstream(path) << fixture.substr(0, fixture.find('\n') + 1)  // the header
                        << "sm_90,132," << token << ',' << model_dim << ',' << inter_dim
                        << ",96,5,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,torch.float4_e2m1fn_x2,"
                           "QuantType.per_1x32,1,0,16,0,10.0,"
                        << kernel1 << ",0.0%,10.0," << kernel2 << ",0.0%,20.0,0,0,0,,\n";
}

std::string default_stage1(int tokens) {
    const auto pair = kernels::default_config({tokens, 5120, 2304, 96, 5}, h200());
    REQUIRE(pair);
    return kernels::kernel_name(pair->stage1);
}

}  // namespace

TEST_CASE("without a row the heuristic default of the bucket runs, logged once per bucket") {
    Planner p{TunedTables()};
    const runtime::BucketPlan three = p.planner.plan(3);
    CHECK_FALSE(three.plan.tuned);
    CHECK(three.plan.source == "heuristic default");
    CHECK(three.plan.bucket == 4);
    CHECK(three.plan.kernel_name1 == default_stage1(4));  // the bucket's default, not 3 tokens'
    CHECK(three.plan.block_m == kernels::sort_block_m(three.configs.stage1));
    CHECK(kernels::kernel_name(three.configs.stage2) == three.plan.kernel_name2);
    p.planner.plan(4);
    p.planner.plan(100);
    p.planner.plan(3);
    REQUIRE(p.lines.size() == 2);
    CHECK(contains(p.lines[0], "moetune: no tuned row for (sm_90, 132, 4, 5120, 2304, 96, 5, ActivationType.Silu,"));
    CHECK(contains(p.lines[0], "using the heuristic default " + three.plan.kernel_name1 + " + "));
    CHECK(contains(p.lines[1], "(sm_90, 132, 128, 5120"));
}

TEST_CASE("a tuned row runs its kernels, silently") {
    Planner p{TunedTables::load({runtime_fixture("sm90_a.csv")})};
    const runtime::BucketPlan four = p.planner.plan(3);
    CHECK(four.plan.tuned);
    CHECK(four.plan.source == runtime_fixture("sm90_a.csv") + ":3");
    CHECK(kernels::kernel_name(four.configs.stage1) == four.plan.kernel_name1);
    CHECK(kernels::kernel_name(four.configs.stage2) == four.plan.kernel_name2);
    CHECK(p.lines.empty());
}

TEST_CASE("a row of another kernel family passes over to the default, logged") {
    Planner p{TunedTables::load({runtime_fixture("sm90_a.csv")})};
    const runtime::BucketPlan plan = p.planner.plan(256);
    CHECK_FALSE(plan.plan.tuned);
    CHECK(plan.plan.kernel_name1 == default_stage1(256));
    REQUIRE(p.lines.size() == 1);
    CHECK(contains(p.lines[0], runtime_fixture("sm90_a.csv") + ":9 names flydsl_moe1_"));
    CHECK(contains(p.lines[0], "not moetune kernels; using the heuristic default"));
}

TEST_CASE("a tuned kernel that cannot run the shape is an error naming its row") {
    // Stage 2 of the row prefetches K in groups of 512, but inter_dim (stage 2's K) is 128.
    MoeShapeKey narrow = test::dsv41_flash_key();
    narrow.inter_dim = 128;
    const test::TempDir dir("runtime_planner");
    const std::string path = (dir / "narrow.csv").string();
    std::string text = test::read_text(runtime_fixture("sm90_b.csv"));
    text.replace(text.find("5120,2304"), 9, "5120,128");
    std::ofstream(path) << text;
    Planner p{TunedTables::load({path}), narrow};
    CHECK(contains(test::thrown_message([&] { p.planner.plan(4); }),
                   path + ":2: moetune_moe2_afp8_wfp4_bf16_t16x128x512_atomic_w4_nt_sbm32 cannot run this shape on "
                          "sm_90a: "));
}

TEST_CASE("shapes the kernels do not implement are refused up front") {
    MoeShapeKey gelu = test::dsv41_flash_key();
    gelu.act_type = "ActivationType.Gelu";
    CHECK(contains(test::thrown_message([&] { Planner(TunedTables(), gelu); }),
                   "unsupported act_type ActivationType.Gelu"));
    MoeShapeKey odd_k = test::dsv41_flash_key();
    odd_k.model_dim = 5000;
    CHECK_THROWS_AS(Planner(TunedTables(), odd_k), std::invalid_argument);
}

TEST_CASE("a row whose kernels read rebased rows wider than FusedMoe quantises to is refused when planned") {
    // The register-fed FP8 kernels read rebased rows: stage 1's quantised from the hidden states
    // (model_dim wide), stage 2's from stage 1's bf16 output (inter_dim wide).
    const std::string stage1 = "moetune_moe1_afp8_wfp4_bf16_t16x128x512_nt_wgmma_gui";
    const std::string stage2 = "moetune_moe2_afp8_wfp4_bf16_t16x128x512_atomic_nt_wgmma";
    const int widest = data::kQuantizeRebasedMaxCols;
    const int wider = widest + 512;
    const test::TempDir dir("runtime_planner_rebased");
    const std::string path = (dir / "rebased.csv").string();
    const std::string row = path + ":2";
    // The source of the plan at 16 tokens (the row when it runs), else the TableError planning throws.
    const auto planned = [&](int model_dim, int inter_dim, const std::string& kernel1) {
        write_one_row_table(path, model_dim, inter_dim, kernel1, stage2);
        Planner p{TunedTables::load({path}), test::shape_key(model_dim, inter_dim, 96, 5)};
        try {
            return p.planner.plan(16).plan.source;
        } catch (const TableError& e) {
            return std::string(e.what());
        }
    };
    const auto refusal = [&](const std::string& kernel, const std::string& dim) {
        return row + ": " + kernel + " reads rebased rows, quantised to them only up to " + std::to_string(widest) +
               " columns, but " + dim + " is " + std::to_string(wider);
    };
    CHECK(planned(wider, 2304, stage1) == refusal(stage1, "model_dim"));
    CHECK(planned(5120, wider, stage1) == refusal(stage2, "inter_dim"));
    CHECK(planned(widest, widest, stage1) == row);
    // A fused MXFP8 stage-1 output is rebased, not quantised, for stage 2: at any width.
    CHECK(planned(5120, wider, "moetune_moe1_afp8_wfp4_bf16_t16x128x128_w2_nt_gui_fp8") == row);
}

TEST_CASE("a row whose stage 1 cannot write what its stage 2 reads is refused when planned") {
    // Stage 2 on MXFP8 rows (_mxr): written by a register-fed _fp8 stage 1 or a bf16 stage 1's
    // quantisation, not by the fused epilogue of any other kernel.
    const std::string stage2 = "moetune_moe2_afp8_wfp4_bf16_t16x128x256_atomic_nt_wgmma_mxr";
    const test::TempDir dir("runtime_planner_handoff");
    const std::string path = (dir / "handoff.csv").string();
    const auto planned = [&](const std::string& kernel1) {
        write_one_row_table(path, 5120, 2304, kernel1, stage2);
        Planner p{TunedTables::load({path})};
        try {
            return p.planner.plan(16).plan.source;
        } catch (const TableError& e) {
            return std::string(e.what());
        }
    };
    const std::string other_fp8 = "moetune_moe1_afp8_wfp4_bf16_t16x128x128_w2_nt_gui_fp8";
    CHECK(planned(other_fp8) == path + ":2: " + other_fp8 + " + " + stage2 +
                                    ": stage 2 reads MXFP8 rows (_mxr), which only a register-fed _fp8 stage 1 or a "
                                    "bf16 one writes");
    CHECK(planned("moetune_moe1_afp8_wfp4_bf16_t16x64x512_w4_nt_wgmma_gui_fp8") == path + ":2");
    CHECK(planned("moetune_moe1_afp8_wfp4_bf16_t16x128x128_w2_nt_gui") == path + ":2");
}

TEST_CASE("eight-row kernels (_r8) are planned for buckets of at most 8 tokens, refused above") {
    const std::string stage1 = "moetune_moe1_afp8_wfp4_bf16_t16x64x512_w4_nt_wgmma_r8_gui";
    const std::string stage2 = "moetune_moe2_afp8_wfp4_bf16_t16x128x256_atomic_nt_wgmma_r8";
    const test::TempDir dir("runtime_planner_eight_rows");
    const std::string path = (dir / "r8.csv").string();
    write_one_row_table(path, 5120, 2304, stage1, stage2, 8);
    Planner eight{TunedTables::load({path})};
    CHECK(eight.planner.plan(5).plan.source == path + ":2");
    write_one_row_table(path, 5120, 2304, stage1, stage2, 16);
    Planner sixteen{TunedTables::load({path})};
    CHECK(test::thrown_message([&] { sixteen.planner.plan(16); }) ==
          path + ":2: " + stage1 + " cannot run this shape on sm_90a: r8 serves at most 8 tokens (its products cover a "
                                   "tile's first 8 rows, all that so few tokens fill)");
}
