// --gpus, the gfx column of an arch, and a dry run's assumed device.
#include "support/catch.hpp"
#include "sweep/sweep_target.h"

using namespace moetune::sweep;

TEST_CASE("target: --gpus is all or a list of devices, each once; whether they exist is asked of the host") {
    CHECK(parse_gpu_selection("all").listed.empty());
    CHECK(parse_gpu_selection("1,0").listed == std::vector<int>{1, 0});
    CHECK(parse_gpu_selection("7").listed == std::vector<int>{7});  // no device is asked yet
    CHECK_THROWS_WITH(parse_gpu_selection("0,0"), "GPU 0 is listed twice");
    CHECK_THROWS_WITH(parse_gpu_selection("0,x"), "'x' is not a GPU index (expected all or a list like 0,1)");
    CHECK_THROWS_WITH(parse_gpu_selection(""), "'' is not a GPU index (expected all or a list like 0,1)");
    CHECK_THROWS_WITH(parse_gpu_selection("-1"), "'-1' is not a GPU index (expected all or a list like 0,1)");
    CHECK_THROWS_WITH(parse_gpu_selection("0,"), "'' is not a GPU index (expected all or a list like 0,1)");

    CHECK(selected_gpus(parse_gpu_selection("all"), 2) == std::vector<int>{0, 1});
    CHECK(selected_gpus(parse_gpu_selection("1"), 2) == std::vector<int>{1});
    CHECK(selected_gpus(parse_gpu_selection("1,0"), 4) == std::vector<int>{1, 0});
    CHECK_THROWS_WITH(selected_gpus(parse_gpu_selection("all"), 0), "no GPU device found");
    CHECK_THROWS_WITH(selected_gpus(parse_gpu_selection("2"), 2), "GPU 2 does not exist (this host has 2: 0..1)");
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
