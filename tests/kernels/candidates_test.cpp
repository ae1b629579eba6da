// Candidate enumeration: for the reference shape every kept config is a distinct kernel that fits
// the device and divides the GEMMs; bad shapes and tight devices prune with readable reasons.
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "dsv41_shape.h"
#include "kernels/candidates.h"
#include "kernels/kernel_name.h"
#include "kernels/resource_model.h"
#include "kernels/static_checks.h"
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

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Re-derives, independently of static_checks.cpp, that `c` can run `s` on `d`.
void check_fits(const KernelConfig& c, const MoeShape& s, const DeviceLimits& d) {
    INFO(kernel_name(c));
    CHECK_FALSE(config_error(c));
    const bool stage1 = c.stage == Stage::gate_up;
    CHECK((stage1 ? 2 * s.inter_dim : s.model_dim) % c.tile_n == 0);
    CHECK((stage1 ? s.model_dim : s.inter_dim) % c.tile_k == 0);
    CHECK(c.tile_k % 32 == 0);
    CHECK(c.warps * d.warp_size <= d.max_threads_per_block);
    REQUIRE(warp_grid(c));
    const ResourceEstimate r = estimate_resources(c, d.warp_size);
    CHECK(r.shared_memory_bytes <= d.max_shared_memory_per_block);
    CHECK(r.registers_per_thread <= d.max_registers_per_thread);
    CHECK(r.registers_per_thread * c.warps * d.warp_size <= d.registers_per_block);
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

TEST_CASE("stage 2 offers tile_m = block_m and tile_m = block_m/2 for every sort block") {
    const CandidateList list = enumerate_candidates(Stage::down, dsv41_flash_ep4(2048), sm90a());
    std::set<std::pair<int, int>> tile_and_block;
    for (const KernelConfig& c : list.kept) tile_and_block.insert({c.tile_m, sort_block_m(c)});
    const std::set<std::pair<int, int>> expected = {{16, 16}, {16, 32}, {32, 32}, {32, 64},
                                                    {64, 64}, {64, 128}, {128, 128}};
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

TEST_CASE("tiles that do not divide the shape are pruned with the sizes named") {
    MoeShape s = dsv41_flash_ep4(64);
    s.inter_dim = 2336;  // 73 x 32: a multiple of the MX block, but of neither 64 nor 128
    const CandidateList s1 = enumerate_candidates(Stage::gate_up, s, sm90a(), {.heuristics = false});
    bool tile_n_reason = false;
    for (const PrunedConfig& p : s1.pruned)
        tile_n_reason |= contains(p.reason, "tile_n 256 does not divide 2*inter_dim 4672");
    CHECK(tile_n_reason);
    for (const KernelConfig& c : s1.kept) CHECK(c.tile_n == 64);

    const CandidateList s2 = enumerate_candidates(Stage::down, s, sm90a(), {.heuristics = false});
    CHECK(s2.kept.empty());
    for (const PrunedConfig& p : s2.pruned) CHECK(contains(p.reason, "does not divide inter_dim 2336"));
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
        {with([](MoeShape& s) { s.model_dim = 5100; }), "model_dim 5100 is not a positive multiple of 32"},
        {with([](MoeShape& s) { s.inter_dim = 2300; }), "inter_dim 2300 is not a positive multiple of 32"},
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

TEST_CASE("a device with less shared memory prunes more, with the limit named") {
    const DeviceLimits gfx942 = *device_limits_for_arch("gfx942");
    const MoeShape shape = dsv41_flash_ep4(4096);
    const CandidateList amd = enumerate_candidates(Stage::gate_up, shape, gfx942);
    const CandidateList nv = enumerate_candidates(Stage::gate_up, shape, sm90a());
    REQUIRE_FALSE(amd.kept.empty());
    CHECK(amd.kept.size() < nv.kept.size());
    for (const KernelConfig& c : amd.kept) check_fits(c, shape, gfx942);
    bool smem_reason = false;
    for (const PrunedConfig& p : amd.pruned) smem_reason |= contains(p.reason, "B exceeds 65536 B (gfx942)");
    CHECK(smem_reason);
}

TEST_CASE("device presets by arch string") {
    const auto h200 = device_limits_for_arch("sm_90a");
    REQUIRE(h200);
    CHECK(h200->max_shared_memory_per_block == 227 * 1024);
    CHECK(h200->registers_per_block == 65536);
    CHECK(h200->warp_size == 32);
    const auto gfx950 = device_limits_for_arch("gfx950");
    REQUIRE(gfx950);
    CHECK(gfx950->max_shared_memory_per_block == 160 * 1024);
    CHECK(gfx950->warp_size == 64);
    CHECK(device_limits_for_arch("gfx90a")->max_shared_memory_per_block == 64 * 1024);
    CHECK_FALSE(device_limits_for_arch("sm_80"));
    CHECK(known_archs() == std::vector<std::string>{"sm_90a", "gfx90a", "gfx942", "gfx950"});
}
