#pragma once
// CPU moe_sorting with AITER's semantics (aiter-fmoe-format.md §5; op_tests/test_moe_sorting.py
// moe_sorting_native). Used by tests and as the oracle the GPU sort kernel is checked against,
// entry for entry.
#include "data/moe_problem.h"

namespace moetune::data {

// The sentinel AITER pads with: slot field = topk, token field = M (one past the last token).
inline int32_t sorted_padding_entry(int tokens, int topk) { return int32_t((uint32_t(topk) << 24) | uint32_t(tokens)); }
inline int32_t sorted_entry(int token, int slot) { return int32_t((uint32_t(slot) << 24) | uint32_t(token)); }

// Layout of the result (every array has its full AITER size, max_num_tokens_padded /
// max_num_m_blocks of moe_problem.h):
//  - experts in ascending id order; within an expert, entries in ascending (token, slot) order.
//    This is the order torch.where(topk_ids == e) yields in AITER's torch reference, and the GPU
//    kernel must produce the same order (a GPU sort that groups correctly but orders by arrival is
//    wrong here): it is what lets the GPU sort be checked entry for entry against this one.
//  - each expert's segment is padded to a multiple of block_m with sorted_padding_entry, weight 0;
//    experts without tokens get no blocks.
//  - sorted_expert_ids[b] = the expert of block b for b < num_valid_ids[0] / block_m, and -1 for
//    every block after that (what the torch reference fills in; AITER's own kernels leave those
//    blocks unspecified and every consumer stops at num_valid_ids[0]).
//  - entries past num_valid_ids[0]: the padding sentinel, weight 0.
//  - num_valid_ids = {sum of padded segment lengths, M}.
// Requires a valid routing (routing_validation.h), M < 2^24, topk < 256, block_m > 0.
SortedRouting moe_sorting_cpu(const Routing& routing, int experts, int block_m);

}  // namespace moetune::data
