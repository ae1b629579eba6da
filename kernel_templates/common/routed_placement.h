#pragma once
// Where moe_sorting (moe_sort.hip, data::moe_sorting_cpu; AITER's order) places a routing entry,
// worked out from the routing's expert ids alone: experts in ascending order, each expert's entries
// in routing order, each expert's segment padded to whole sort blocks. Entry i of expert e lands at
// start(e) + rank(i): start(e) the padded sizes of the experts below e, rank(i) the entries of e
// before i. The few-token stage kernels run it over shared memory, a thread an entry
// (routed_rows.h); tests/data/routed_placement_test.cpp checks it against the CPU sort.
#include "host_device.h"

// ids: [entries] expert ids, -1 for a dropped entry. Entry i's expert's entries (count) and those of
// them before i (rank).
MOETUNE_HD void mx_routed_count_rank(const int* ids, int entries, int i, int& count, int& rank) {
    const int e = ids[i];
    count = 0;
    rank = 0;
    for (int j = 0; j < entries; ++j) {
        const bool same = ids[j] == e;
        count += same ? 1 : 0;
        rank += same && j < i ? 1 : 0;
    }
}

// An expert's segment: its entries padded to whole sort blocks.
MOETUNE_HD int mx_routed_segment(int count, int sort_block) { return (count + sort_block - 1) / sort_block * sort_block; }

// Where expert e's segment starts. segment_at_first[j]: entry j's expert's segment where j is that
// expert's first entry (rank 0), else 0 (and 0 for a dropped entry).
MOETUNE_HD int mx_routed_start(const int* ids, const int* segment_at_first, int entries, int e) {
    int start = 0;
    for (int j = 0; j < entries; ++j) start += ids[j] < e ? segment_at_first[j] : 0;
    return start;
}
