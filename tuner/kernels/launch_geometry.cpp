#include "kernels/launch_geometry.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/kernel_name.h"
#include "kernels/resource_model.h"
#include "kernels/static_checks.h"

namespace moetune::kernels {

long long used_sort_blocks_bound(const data::MoeShape& shape, int block_m) {
    const long long rows = (long long)shape.tokens * shape.topk;
    const long long bound = rows / block_m + std::min<long long>(shape.experts, rows);
    return std::min<long long>(bound, data::max_num_m_blocks(shape.tokens, shape.topk, shape.experts, block_m));
}

LaunchGeometry launch_geometry(const KernelConfig& c, const data::MoeShape& shape, long long resident_workgroups) {
    const bool stage1 = c.stage == Stage::gate_up;
    const int n = stage1 ? 2 * shape.inter_dim : shape.model_dim;
    if (n % c.tile_n != 0)
        throw std::invalid_argument(kernel_name(c) + ": tile_n " + std::to_string(c.tile_n) + " does not divide N " +
                                    std::to_string(n));
    const int sort_bm = sort_block_m(c);
    const long long m_tiles = used_sort_blocks_bound(shape, sort_bm) * (sort_bm / c.tile_m);
    const long long row_tiles = std::max<long long>(m_tiles, 1);
    LaunchGeometry g;
    if (persistent_tiles(c)) {
        const long long tiles = row_tiles * (n / c.tile_n);
        g.grid = {unsigned(resident_workgroups > 0 ? std::min(tiles, resident_workgroups) : tiles), 1, 1};
    } else if (n_tiles_fastest(c)) {
        if (row_tiles > kMaxGridY)
            throw std::invalid_argument(kernel_name(c) + ": " + std::to_string(row_tiles) +
                                        " row tiles exceed the grid's y limit of " + std::to_string(kMaxGridY) +
                                        " at " + std::to_string(shape.tokens) + " tokens");
        g.grid = {unsigned(n / c.tile_n), unsigned(row_tiles), 1};
    } else {
        g.grid = {unsigned(row_tiles), unsigned(n / c.tile_n), 1};
    }
    g.block = {unsigned(threads_per_block(c)), 1, 1};
    g.dynamic_shared_bytes = unsigned(dynamic_shared_bytes(c));
    return g;
}

LaunchGeometry reduce_launch_geometry(const data::MoeShape& shape) {
    const long long groups = (long long)shape.tokens * (shape.model_dim / 8);
    LaunchGeometry g;
    g.grid = {unsigned((groups + kReduceThreads - 1) / kReduceThreads), 1, 1};
    g.block = {unsigned(kReduceThreads), 1, 1};
    return g;
}

}  // namespace moetune::kernels
