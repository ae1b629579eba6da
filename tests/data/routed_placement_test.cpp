// Where the few-token stage kernels place a routing entry (kernel_templates/common/routed_placement.h,
// run a thread an entry by routed_rows.h) against the CPU moe_sorting: every entry at its sorted
// position, the segments' total the sorted rows' count, on random and skewed routings of up to 64
// entries (kMxRoutedEntriesMax) and every sort block; a dropped id moves no other entry but its
// expert's later ones.
#include <algorithm>
#include <random>
#include <vector>

#include "common/moe_args.h"
#include "common/routed_placement.h"
#include "data/moe_sorting.h"
#include "data/routing_generators.h"
#include "support/catch.hpp"

using namespace moetune::data;

namespace {

struct Placement {
    std::vector<int> position;  // of each entry; -1 for a dropped one
    int rows = 0;               // the segments' total: moe_sorting's num_valid_ids[0]
};

// The kernels' two passes, one "thread" after another (each pass reads only what the one before wrote).
Placement place(const std::vector<int>& ids, int sort_block) {
    const int entries = int(ids.size());
    std::vector<int> count(ids.size()), rank(ids.size()), segment_at_first(ids.size());
    for (int i = 0; i < entries; ++i) {
        mx_routed_count_rank(ids.data(), entries, i, count[size_t(i)], rank[size_t(i)]);
        segment_at_first[size_t(i)] = ids[size_t(i)] >= 0 && rank[size_t(i)] == 0 ? mx_routed_segment(count[size_t(i)], sort_block) : 0;
    }
    Placement p;
    for (int i = 0; i < entries; ++i) {
        p.rows += segment_at_first[size_t(i)];
        p.position.push_back(ids[size_t(i)] < 0 ? -1
                                                : mx_routed_start(ids.data(), segment_at_first.data(), entries, ids[size_t(i)]) +
                                                      rank[size_t(i)]);
    }
    return p;
}

}  // namespace

TEST_CASE("the few-token kernels place every routing entry where moe_sorting does") {
    std::mt19937 rng(20261205);
    for (int trial = 0; trial < 400; ++trial) {
        const int topk = 1 + int(rng() % 8);
        const int tokens = 1 + int(rng() % (kMxRoutedEntriesMax / topk));
        const int experts = std::max(2, topk) + int(rng() % 128);
        const int sort_block = 16 << (rng() % 5);  // 16 .. 256
        Routing r = random_routing(tokens, experts, topk, rng());
        if (trial % 4 == 1) {
            // Skewed: most entries on a few experts, so segments span several blocks.
            for (int32_t& e : r.ids) e = int32_t(rng() % 3) * (experts / 3);
        }
        INFO("trial " << trial << ": " << tokens << " tokens, topk " << topk << ", " << experts << " experts, block "
                      << sort_block);
        const SortedRouting sorted = moe_sorting_cpu(r, experts, sort_block);
        const Placement p = place(std::vector<int>(r.ids.begin(), r.ids.end()), sort_block);
        CHECK(p.rows == sorted.num_valid_ids[0]);
        for (int i = 0; i < tokens * topk; ++i) {
            const int at = p.position[size_t(i)];
            REQUIRE(at >= 0);
            CHECK(sorted.sorted_token_ids[size_t(at)] == ((i % topk) << 24 | i / topk));
            CHECK(sorted.sorted_expert_ids[size_t(at / sort_block)] == r.ids[size_t(i)]);
        }
    }
}

TEST_CASE("a dropped routing entry moves only its own expert's later entries") {
    // Experts 2, 0, 2, 1, 2 with sort block 16: segments 0 (entry 1), 1 (entry 3), 2 (entries 0, 2, 4).
    const std::vector<int> ids{2, 0, 2, 1, 2};
    const Placement all = place(ids, 16);
    CHECK(all.position == std::vector<int>{32, 0, 33, 16, 34});
    CHECK(all.rows == 48);
    // Entry 2 dropped (an id outside [0, experts)): entry 4 takes its place, the rest stay.
    const Placement dropped = place({2, 0, -1, 1, 2}, 16);
    CHECK(dropped.position == std::vector<int>{32, 0, -1, 16, 33});
    CHECK(dropped.rows == 48);
}
