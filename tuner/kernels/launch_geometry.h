#pragma once
// Grid and block of one candidate kernel for one problem, as the templates in kernel_templates/
// expect them: x walks the sorted-row tiles and y the N tiles, or the other way round where
// n_tiles_fastest(config). Pure arithmetic, no GPU SDK.
#include "common/grid_limits.h"
#include "data/moe_problem.h"
#include "kernels/kernel_config.h"

namespace moetune::kernels {

struct Dim3 {
    unsigned x = 1, y = 1, z = 1;
};

struct LaunchGeometry {
    Dim3 grid;
    Dim3 block;
    unsigned dynamic_shared_bytes = 0;
};

// An upper bound on the sort blocks moe_sorting fills: each expert with rows rounds up once, so
// sum_e ceil(c_e / bm) <= floor(M*topk / bm) + min(E, M*topk). Launching only these (instead of
// all max_num_m_blocks) matters at few tokens, where most blocks of the worst case are empty.
long long used_sort_blocks_bound(const data::MoeShape& shape, int block_m);

// Throws std::invalid_argument when the config does not tile the shape (pruning rejects those), or
// when its row tiles do not fit the grid's y dimension (n_tiles_fastest, ~800 thousand tokens).
// persistent_tiles(c): a 1-D grid of min(tiles, resident_workgroups) workgroups, each walking tiles;
// resident_workgroups 0 (not known: no GPU at hand) gives one a tile, the same results.
LaunchGeometry launch_geometry(const KernelConfig& c, const data::MoeShape& shape, long long resident_workgroups = 0);

// The stage-2 reduce kernel (kernel_templates/moe_reduce.hip): kReduceThreads threads, 8 columns each.
inline constexpr int kReduceThreads = 256;
LaunchGeometry reduce_launch_geometry(const data::MoeShape& shape);

}  // namespace moetune::kernels
