// The shared-memory layouts of the _smem / _wgmma loop (kernel_templates/common/shared_operand_layout.h):
// every 16-byte unit of a buffer is stored exactly once per chunk, and each 16-byte store instruction
// of a warp takes one wavefront per quarter warp (its 8 lanes hit 8 different 16-byte bank groups),
// for the thread mappings moe_shared_gemm.h uses, at every tile size the candidates use.
#include <algorithm>
#include <array>
#include <functional>
#include <random>
#include <set>
#include <vector>

#include "common/shared_operand_layout.h"
#include "data/moe_sorting.h"
#include "support/catch.hpp"

namespace {

constexpr int kUnit = 16;

// Wavefronts per quarter warp of one 16-byte store: the largest number of its 8 lanes that share a
// bank group.
int quarter_wavefronts(const std::array<int, 8>& offsets) {
    std::array<int, 8> per_group{};
    for (int offset : offsets) ++per_group[(offset / kUnit) % 8];
    return *std::max_element(per_group.begin(), per_group.end());
}

// The store instructions of one chunk: `vectors` work items spread over `threads` threads as the loop
// does (item tid + i * threads); `store(item, k)` is the byte offset of the item's k-th 16-byte store
// (k < stores). Returns the worst wavefronts per quarter warp; `written` counts each unit.
int worst_wavefronts(int vectors, int threads, int stores, const std::function<int(int, int)>& store,
                     std::vector<int>& written) {
    int worst = 0;
    for (int i = 0; i * threads < vectors; ++i)
        for (int warp = 0; warp < threads / 32; ++warp)
            for (int quarter = 0; quarter < 4; ++quarter)
                for (int k = 0; k < stores; ++k) {
                    std::array<int, 8> offsets{};
                    int lanes = 0;
                    for (int lane = 0; lane < 8; ++lane) {
                        const int item = i * threads + warp * 32 + quarter * 8 + lane;
                        if (item >= vectors) continue;
                        offsets[lanes] = store(item, k);
                        ++written.at(offsets[lanes++] / kUnit);
                    }
                    if (lanes == 8) worst = std::max(worst, quarter_wavefronts(offsets));
                }
    return worst;
}

bool each_once(const std::vector<int>& written) {
    return std::all_of(written.begin(), written.end(), [](int n) { return n == 1; });
}

// The wgmma loop's activation copies (copy_wide_acts): unit u of the chunk's pre-widened rows.
int wgmma_act_wavefronts(int tile_m, std::vector<int>& written) {
    const int threads = tile_m / 16 * 32;
    return worst_wavefronts(tile_m * 16, threads, 1, [&](int u, int) { return mx_wgmma_wide_act_offset(tile_m, u); },
                            written);
}

// The weight stores (store_weights): vector v's row and unit t of each MX block kb, placed by
// `offset(row, unit)`.
int weight_wavefronts(int tile_n, int threads, const std::function<int(int)>& lane_of,
                      const std::function<int(int, int)>& offset, std::vector<int>& written) {
    return worst_wavefronts(tile_n * 4, threads, 4, [&](int v, int kb) {
        const int lane = lane_of(v);
        return offset((v / 32) * 8 + lane / 4, kb * 4 + lane % 4);
    }, written);
}

int wgmma_weight_wavefronts(int tile_n, int threads, const std::function<int(int)>& lane_of, std::vector<int>& written) {
    return weight_wavefronts(tile_n, threads, lane_of,
                             [tile_n](int row, int unit) { return mx_wgmma_unit_offset(tile_n, row, unit); }, written);
}

}  // namespace

TEST_CASE("wgmma layout: every unit stored once, one wavefront per quarter warp") {
    for (int tile_m : {64, 128, 256}) {
        std::vector<int> written(tile_m * kMxSharedRowBytes / kUnit);
        CHECK(wgmma_act_wavefronts(tile_m, written) == 1);
        CHECK(each_once(written));
        for (int tile_n : {64, 128, 256}) {
            std::vector<int> b_written(tile_n * kMxSharedRowBytes / kUnit);
            CHECK(wgmma_weight_wavefronts(tile_n, tile_m / 16 * 32, mx_shared_weight_lane<true>, b_written) == 1);
            CHECK(each_once(b_written));
        }
    }
}

// copy_wide_acts addresses a thread's units from its first one: unit u + i * threads lies
// i * threads * 8 bytes after unit u (whole swizzle periods of rows apart).
TEST_CASE("wgmma layout: a thread's activation units lie a constant stride apart") {
    for (int tile_m : {64, 128, 256}) {
        const int threads = tile_m / 16 * 32;
        for (int u = 0; u < threads; ++u)
            for (int i = 0; i * threads < tile_m * 16; ++i)
                CHECK(mx_wgmma_wide_act_offset(tile_m, u + i * threads) ==
                      mx_wgmma_wide_act_offset(tile_m, u) + i * threads * 8);
    }
}

TEST_CASE("wgmma layout: the plain weight mapping would take two wavefronts per store") {
    // Why the mapping exists: weight rows r and r + 1 share bank groups.
    std::vector<int> b_written(128 * kMxSharedRowBytes / kUnit);
    CHECK(wgmma_weight_wavefronts(128, 256, mx_shared_weight_lane<false>, b_written) == 2);
}

TEST_CASE("the thread mappings are permutations") {
    std::set<int> lanes;
    for (int v = 0; v < 32; ++v) lanes.insert(mx_shared_weight_lane<true>(v));
    CHECK(lanes.size() == 32);
    CHECK(*lanes.rbegin() == 31);
}

TEST_CASE("warp-product layout: every unit stored once, one wavefront per quarter warp") {
    for (int threads : {128, 256}) {
        for (int tile_m : {32, 64, 128}) {
            std::vector<int> written(tile_m * kMxSharedRowBytes / kUnit);
            const int worst = worst_wavefronts(tile_m * 4, threads, 4, [](int p, int q) {
                int pair_row = 0, piece = 0;
                mx_shared_act_pair_position(p, pair_row, piece);
                return mx_shared_a_segment_offset(pair_row, 4 * piece + q);
            }, written);
            CHECK(worst == 1);
            CHECK(each_once(written));
        }
        for (int tile_n : {64, 128, 256}) {
            std::vector<int> written(tile_n * kMxSharedRowBytes / kUnit);
            CHECK(weight_wavefronts(tile_n, threads, mx_shared_weight_lane<false>, mx_shared_b_unit_offset, written) == 1);
            CHECK(each_once(written));
        }
    }
}

TEST_CASE("swapped wgmma tiles: each warp holds a gate tile and its up tile, every tile once") {
    CHECK(mx_swapped_wgmma(true, 32));
    CHECK(mx_swapped_wgmma(true, 16));
    CHECK_FALSE(mx_swapped_wgmma(true, 64));
    CHECK_FALSE(mx_swapped_wgmma(false, 32));
    for (int tile_n : {64, 128, 256}) {
        INFO("tile_n " << tile_n);
        const int tiles = tile_n / 8, warps = tile_n / 16;
        std::set<int> placed, held;
        for (int t = 0; t < tiles; ++t) {
            CHECK(mx_swapped_weight_tile<true>(mx_swapped_weight_tile<true>(t)) == t);  // its own inverse
            CHECK(mx_swapped_weight_tile<false>(t) == t);
            placed.insert(mx_swapped_weight_tile<true>(t));
        }
        CHECK(int(placed.size()) == tiles);
        for (int w = 0; w < warps; ++w) {
            // Stage 1: buffer tiles 2w, 2w + 1 are gate tile lo (half 0 or 1 of its GU16 group) and
            // up tile lo + 2 of the same output columns.
            const int lo = mx_swapped_warp_tile<true>(w);
            CHECK(lo % 4 < 2);
            CHECK(mx_swapped_weight_tile<true>(2 * w) == lo);
            CHECK(mx_swapped_weight_tile<true>(2 * w + 1) == lo + 2);
            held.insert(lo);
            held.insert(lo + 2);
            // Stage 2: tiles in order.
            CHECK(mx_swapped_warp_tile<false>(w) == 2 * w);
        }
        CHECK(int(held.size()) == tiles);
    }
}

namespace {

// The sort (moe_sorting_cpu, the GPU sort's oracle) of a top-1 routing that gives expert e rows[e] tokens, in
// SORT_BM-row blocks: the block -> expert table the kernels read, -1 past num_valid.
moetune::data::SortedRouting sorted_for_rows(const std::vector<int>& rows, int sort_bm) {
    moetune::data::Routing routing;
    routing.topk = 1;
    for (int e = 0; e < int(rows.size()); ++e) routing.ids.insert(routing.ids.end(), size_t(rows[size_t(e)]), e);
    routing.tokens = int(routing.ids.size());
    routing.weights.assign(routing.ids.size(), 1.f);
    return moetune::data::moe_sorting_cpu(routing, int(rows.size()), sort_bm);
}

template <int TILE_M, int SORT_BM>
void check_only_row_tiles(const std::vector<int>& rows) {
    const moetune::data::SortedRouting sorted = sorted_for_rows(rows, SORT_BM);
    const std::vector<int32_t>& table = sorted.sorted_expert_ids;
    const int num_valid = sorted.num_valid_ids[0];
    // What a walk reads: every tile below num_valid reads the weights of its first block's expert.
    std::vector<int> tiles_of(rows.size(), 0);
    for (int row0 = 0; row0 < num_valid; row0 += TILE_M) ++tiles_of[size_t(table[size_t(row0 / SORT_BM)])];
    for (int row0 = 0; row0 < num_valid; row0 += TILE_M) {
        const int e = table[size_t(row0 / SORT_BM)];
        INFO("tile_m " << TILE_M << " sort_bm " << SORT_BM << " row0 " << row0 << " expert " << e);
        CHECK(mx_expert_row_tiles_one<TILE_M, SORT_BM>(table.data(), row0, num_valid, e) == (tiles_of[size_t(e)] == 1));
    }
}

}  // namespace

TEST_CASE("a row tile is its expert's only one exactly where no other tile of the walk reads its weights") {
    const std::vector<int> fixed = {1, 64, 65, 128, 129, 0, 256, 300, 0, 0, 63, 127};
    std::mt19937 rng(7);
    std::vector<int> random(96);
    for (int& r : random) r = int(rng() % 300);
    for (const auto& rows : {fixed, random}) {
        check_only_row_tiles<64, 64>(rows);
        check_only_row_tiles<64, 128>(rows);
        check_only_row_tiles<128, 128>(rows);
        check_only_row_tiles<128, 256>(rows);
    }
}
