// --gpus, the gfx column of an arch, and a dry run's assumed device.
#include "support/catch.hpp"
#include "sweep/sweep_target.h"

using namespace moetune::sweep;

TEST_CASE("target: --gpus is all or a list of existing devices, each once") {
    CHECK(parse_gpu_list("all", 2) == std::vector<int>{0, 1});
    CHECK(parse_gpu_list("1", 2) == std::vector<int>{1});
    CHECK(parse_gpu_list("1,0", 4) == std::vector<int>{1, 0});
    CHECK_THROWS_WITH(parse_gpu_list("all", 0), "no GPU device found");
    CHECK_THROWS_WITH(parse_gpu_list("2", 2), "GPU 2 does not exist (this host has 2: 0..1)");
    CHECK_THROWS_WITH(parse_gpu_list("0,0", 2), "GPU 0 is listed twice");
    CHECK_THROWS_WITH(parse_gpu_list("0,x", 2), "'x' is not a GPU index (expected all or a list like 0,1)");
    CHECK_THROWS_WITH(parse_gpu_list("", 2), "'' is not a GPU index (expected all or a list like 0,1)");
    CHECK_THROWS_WITH(parse_gpu_list("-1", 2), "'-1' is not a GPU index (expected all or a list like 0,1)");
}

TEST_CASE("target: the gfx column of a compile arch") {
    CHECK(table_gfx_of_arch("sm_90a") == "sm_90");
    CHECK(table_gfx_of_arch("sm_90") == "sm_90");
    CHECK(table_gfx_of_arch("sm_100f") == "sm_100");
    CHECK(table_gfx_of_arch("gfx950:sramecc+:xnack-") == "gfx950");
    CHECK(table_gfx_of_arch("gfx942") == "gfx942");
}

TEST_CASE("target: a dry run assumes the arch preset's part unless told otherwise") {
    const SweepTarget h200 = dry_run_target("sm_90a", std::nullopt, std::nullopt);
    CHECK(h200.arch == "sm_90a");
    CHECK(h200.plan.gfx == "sm_90");
    CHECK(h200.plan.cu_num == 132);
    CHECK(h200.plan.limits.arch == "sm_90a");
    const SweepTarget mi355 = dry_run_target("gfx950", std::nullopt, std::nullopt);
    CHECK(mi355.plan.gfx == "gfx950");
    CHECK(mi355.plan.cu_num == 256);
    const SweepTarget mi308 = dry_run_target("gfx942", std::string("gfx942"), 80LL);
    CHECK(mi308.plan.cu_num == 80);
    CHECK_THROWS_AS(dry_run_target("sm_80", std::nullopt, std::nullopt), std::invalid_argument);
}
