// The grid each candidate is launched with (kernels/launch_geometry.h): which dimension walks the
// row tiles, how many there are, and the y limit of the N-tiles-first order.
#include <stdexcept>

#include "dsv41_shape.h"
#include "kernels/launch_geometry.h"
#include "parsed_config.h"
#include "support/catch.hpp"

using namespace moetune::kernels;
using moetune::test::dsv41_flash_ep4;
using moetune::test::parse;

TEST_CASE("register-fed kernels walk the row tiles first, _wgmma kernels the N tiles") {
    const auto shape = dsv41_flash_ep4(4096);
    // 20480 routed rows: at most 20480 / bm + 96 used sort blocks.
    const KernelConfig fed = parse("moetune_moe2_afp8_wfp4_bf16_t16x256x128_atomic_w4_nt_mbf16");
    const LaunchGeometry g = launch_geometry(fed, shape);
    CHECK(g.grid.x == 20480 / 16 + 96);
    CHECK(g.grid.y == 5120 / 256);
    CHECK_FALSE(n_tiles_fastest(fed));

    const KernelConfig wgmma = parse("moetune_moe2_afp8_wfp4_bf16_t128x128x128_atomic_smem_wgmma_mbf16");
    const LaunchGeometry w = launch_geometry(wgmma, shape);
    CHECK(n_tiles_fastest(wgmma));
    CHECK(w.grid.x == 5120 / 128);
    CHECK(w.grid.y == 20480 / 128 + 96);
    CHECK(w.block.x == 8 * 32);

    // Register-fed warpgroup products stream weights like the register-fed loop: row tiles first.
    const KernelConfig register_fed = parse("moetune_moe2_afp8_wfp4_bf16_t16x128x512_atomic_nt_wgmma");
    const LaunchGeometry r = launch_geometry(register_fed, shape);
    CHECK_FALSE(n_tiles_fastest(register_fed));
    CHECK(r.grid.x == 20480 / 16 + 96);
    CHECK(r.grid.y == 5120 / 128);
    CHECK(r.block.x == 8 * 32);

    const KernelConfig stage1 = parse("moetune_moe1_afp8_wfp4_bf16_t64x128x128_w4_smem_wgmma_mbf16_gui_fp8");
    const LaunchGeometry s1 = launch_geometry(stage1, shape);
    CHECK(s1.grid.x == 2 * 2304 / 128);
    CHECK(s1.grid.y == 20480 / 64 + 96);
}

TEST_CASE("FP8 shared-operand kernels walk their tiles over a 1-D grid of the workgroups the GPU holds") {
    const auto shape = dsv41_flash_ep4(4096);
    const KernelConfig fp8 = parse("moetune_moe2_afp8_wfp4_bf16_t256x128x128_atomic_w16_smem_wgmma");
    CHECK(persistent_tiles(fp8));
    const long long tiles = (20480 / 256 + 96) * (5120 / 128);
    // Not known (no GPU at hand): one workgroup a tile.
    const LaunchGeometry all = launch_geometry(fp8, shape);
    CHECK(all.grid.x == tiles);
    CHECK(all.grid.y == 1);
    const LaunchGeometry resident = launch_geometry(fp8, shape, 132);
    CHECK(resident.grid.x == 132);
    CHECK(resident.grid.y == 1);
    CHECK(resident.block.x == 16 * 32);
    // Fewer tiles than workgroups (1 token: 5 rows, at most 5 used sort blocks): one a tile.
    CHECK(launch_geometry(fp8, dsv41_flash_ep4(1), 1000).grid.x == 5 * (5120 / 128));
    // The bf16 path and the register-fed kernels keep their 2-D grids.
    CHECK_FALSE(persistent_tiles(parse("moetune_moe2_afp8_wfp4_bf16_t128x128x128_atomic_smem_wgmma_mbf16")));
    CHECK_FALSE(persistent_tiles(parse("moetune_moe2_afp8_wfp4_bf16_t16x128x512_atomic_nt_wgmma")));
    CHECK(launch_geometry(parse("moetune_moe2_afp8_wfp4_bf16_t128x128x128_atomic_smem_wgmma_mbf16"), shape, 132).grid.y ==
          20480 / 128 + 96);
}

TEST_CASE("N tiles first: row tiles beyond the grid's y limit are refused with the count named") {
    const KernelConfig wgmma = parse("moetune_moe2_afp8_wfp4_bf16_t64x128x128_atomic_w4_smem_wgmma_mbf16");
    // 5 * 900000 / 64 + 96 = 70408 row tiles > 65535.
    CHECK_THROWS_WITH(launch_geometry(wgmma, dsv41_flash_ep4(900000)),
                      Catch::Matchers::ContainsSubstring("70408 row tiles exceed the grid's y limit of 65535"));
    CHECK_NOTHROW(launch_geometry(wgmma, dsv41_flash_ep4(131072)));
    // Row tiles first, x has room for them.
    CHECK_NOTHROW(launch_geometry(parse("moetune_moe2_afp8_wfp4_bf16_t16x256x128_atomic_w4_nt_mbf16"),
                                  dsv41_flash_ep4(900000)));
}
