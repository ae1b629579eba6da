// BucketPlanner, FusedMoe's choice of kernels per bucket, without a GPU: the tuned row when the
// device's key finds one, else kernels::default_config at the bucket, logged once per bucket; rows
// of other kernel families pass over to the default; a tuned kernel that cannot run the shape is a
// TableError naming the row.
#include <fstream>
#include <string>
#include <vector>

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
