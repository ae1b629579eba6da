// Compile planning: every kernel some bucket keeps, once, and nothing else; the space stays small
// enough for CI to compile a whole shape file.
#include <set>
#include <string>
#include <vector>

#include "dsv41_shape.h"
#include "kernels/compile_plan.h"
#include "kernels/kernel_name.h"
#include "support/catch.hpp"

using namespace moetune::kernels;
using moetune::data::MoeShape;
using moetune::test::dsv41_flash_ep4;
using moetune::test::kBuckets;

namespace {
const DeviceLimits& sm90a() {
    static const DeviceLimits limits = *device_limits_for_arch("sm_90a");
    return limits;
}

std::vector<MoeShape> dsv41_buckets() {
    std::vector<MoeShape> shapes;
    for (int tokens : kBuckets) shapes.push_back(dsv41_flash_ep4(tokens));
    return shapes;
}
}  // namespace

TEST_CASE("the plan of the DSv4.1 file is the union of its buckets' candidates, each kernel once") {
    const std::vector<MoeShape> shapes = dsv41_buckets();
    const CompilePlan plan = plan_compile(shapes, sm90a());

    std::set<std::string> expected[2];
    for (const MoeShape& s : shapes)
        for (Stage stage : {Stage::gate_up, Stage::down})
            for (const KernelConfig& c : enumerate_candidates(stage, s, sm90a()).kept)
                expected[stage_number(stage) - 1].insert(kernel_name(c));

    std::set<std::string> planned[2];
    bool stage2_seen = false;
    for (const KernelConfig& c : plan.kernels) {
        CHECK(planned[stage_number(c.stage) - 1].insert(kernel_name(c)).second);
        stage2_seen |= c.stage == Stage::down;
        if (stage2_seen) CHECK(c.stage == Stage::down);  // stage 1 first
    }
    CHECK(planned[0] == expected[0]);
    CHECK(planned[1] == expected[1]);

    // Together with the pruned configs it is the whole search space, each config in one list.
    std::set<std::string> space;
    for (Stage stage : {Stage::gate_up, Stage::down})
        for (const KernelConfig& c : search_space(stage)) space.insert(kernel_name(c));
    std::set<std::string> covered = planned[0];
    covered.insert(planned[1].begin(), planned[1].end());
    for (const PrunedConfig& p : plan.pruned) {
        CHECK_FALSE(p.reason.empty());
        CHECK(covered.insert(kernel_name(p.config)).second);
    }
    CHECK(covered == space);
}

TEST_CASE("the DSv4.1 plan fits the CI compile budget") {
    // Compiling the whole file is a CI test on 2 cores (docs/kernel-names.md): at ~0.4 s of NVRTC
    // CPU time per kernel, these bounds keep it to a few minutes. Growing the space past them is a
    // decision to make on purpose, with the CI time measured again (both MMA paths, K-groups and
    // shared operands: 341 + 454 kernels; with K-groups of 4 warps too, 373 + 504; with 256-row
    // wgmma tiles 377 + 512; with two wgmma warpgroups side by side on 256-wide tiles 381 + 518; with
    // the occupancy bound on 4-warp register-fed kernels 393 + 539; with FP8 warpgroup products
    // on rebased rows 406 + 562; with register-fed FP8 warpgroup products 406 + 579; the
    // warp-specialised twins add 10 + 8, their 256-wide tiles 4 + 6, those with FP4 weights 4 + 6, the
    // read-once twins 4 + 6, the eight-row twins 9 + 18).
    const CompilePlan plan = plan_compile(dsv41_buckets(), sm90a());
    std::size_t per_stage[2] = {0, 0};
    for (const KernelConfig& c : plan.kernels) ++per_stage[stage_number(c.stage) - 1];
    INFO("stage 1: " << per_stage[0] << " kernels, stage 2: " << per_stage[1]);
    CHECK(per_stage[0] >= 40);
    CHECK(per_stage[0] <= 500);
    CHECK(per_stage[1] >= 40);
    CHECK(per_stage[1] <= 640);
}

TEST_CASE("a single shape plans exactly its candidates; no shapes plan nothing") {
    const MoeShape shape = dsv41_flash_ep4(1);
    const CompilePlan plan = plan_compile({shape}, sm90a());
    std::vector<KernelConfig> expected = enumerate_candidates(Stage::gate_up, shape, sm90a()).kept;
    const std::vector<KernelConfig> stage2 = enumerate_candidates(Stage::down, shape, sm90a()).kept;
    expected.insert(expected.end(), stage2.begin(), stage2.end());
    CHECK(plan.kernels == expected);

    const CompilePlan none = plan_compile({}, sm90a());
    CHECK(none.kernels.empty());
    CHECK(none.pruned.empty());
}

TEST_CASE("a shape no kernel can run stops the plan") {
    MoeShape bad = dsv41_flash_ep4(1);
    bad.inter_dim = 2336;
    CHECK_THROWS_AS(plan_compile({dsv41_flash_ep4(2), bad}, sm90a()), std::invalid_argument);
}
