// AITER moe_sorting (aiter-fmoe-format.md §5) on the GPU, equal entry for entry to the CPU
// moe_sorting_cpu: experts in ascending id order, within an expert the (token, slot) entries in
// ascending order, each expert's segment padded to a multiple of block_m with (topk << 24) | M and
// weight 0; experts without tokens get no blocks. It runs inside every timed MoE, so it is built
// for M up to 16384 x topk 8 without losing that determinism:
//
//   moe_sort_count    one block per chunk of THREADS*ITEMS routing entries: the chunk's per-expert
//                     histogram -> chunk_counts[chunk][expert]. Spare blocks zero moe_buf (stage 2's
//                     atomic mode accumulates into it).
//   moe_sort_scatter  one block per chunk again: every block reads the whole (small) histogram
//                     table, so it knows each expert's start and how many entries of that expert
//                     earlier chunks hold; then it places its entries in order, ITEMS rounds of
//                     THREADS entries, each entry's rank among the same expert counted from votes of
//                     its 32-lane group and the counts of the groups before it. No atomics decide a
//                     position, so the output is the same on every run. Block 0 also writes the
//                     padding, the block -> expert table, num_valid_ids and the unused tail
//                     (sentinel entries with weight 0, expert id -1, as the CPU sort and AITER's
//                     torch reference do).
//   moe_sort_one_chunk  both in one launch when the routing is one chunk (M*topk <= THREADS*ITEMS,
//                     every decode bucket): block 0 counts into shared memory and places from
//                     there, the other blocks zero moe_buf. At a few tokens the sort sits on the
//                     MoE's critical path and a launch is a good part of its time.
//
// Entries whose expert id is outside [0, experts) are dropped (routing is validated on the host;
// this only keeps a bad id from writing out of bounds).
#include "common/host_device.h"
#include "common/lane_shuffle.h"

// 16 bytes: the unit of moe_buf zeroing.
struct alignas(16) moe_sort_word4 {
    unsigned x, y, z, w;
};

__device__ inline bool moe_sort_valid_expert(int e, int experts) { return e >= 0 && e < experts; }

// This thread's expert ids of the ITEMS rounds of entries [base, base + THREADS*ITEMS) (round j: entry
// base + j*THREADS + threadIdx.x), all loaded before any is used; -1 past the entries and for an id
// outside [0, experts).
template <int THREADS, int ITEMS>
__device__ inline void moe_sort_load_ids(const int* __restrict__ topk_ids, int entries, int experts, int base,
                                         int (&ids)[ITEMS]) {
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const int i = base + j * THREADS + int(threadIdx.x);
        const int e = i < entries ? topk_ids[i] : -1;
        ids[j] = moe_sort_valid_expert(e, experts) ? e : -1;
    }
}

// The per-expert histogram of the block's ids (moe_sort_load_ids) into `histogram` (shared memory,
// [experts]); ends with a barrier, so every thread may read all of it.
template <int THREADS, int ITEMS>
__device__ inline void moe_sort_histogram(const int (&ids)[ITEMS], int experts, int* histogram) {
    for (int e = threadIdx.x; e < experts; e += THREADS) histogram[e] = 0;
    __syncthreads();
#pragma unroll
    for (int j = 0; j < ITEMS; ++j)
        if (ids[j] >= 0) atomicAdd(&histogram[ids[j]], 1);
    __syncthreads();
}

// Zeroes moe_buf, thread `first` of `stride` threads. moe_buf is cudaMalloc'ed (256-byte
// aligned): 16-byte stores, then the odd tail bytes.
__device__ inline void moe_sort_zero(unsigned char* __restrict__ moe_buf, unsigned long long moe_buf_bytes,
                                     unsigned long long first, unsigned long long stride) {
    const unsigned long long vectors = moe_buf_bytes / 16;
    moe_sort_word4* v = (moe_sort_word4*)moe_buf;
    for (unsigned long long k = first; k < vectors; k += stride) v[k] = moe_sort_word4{0, 0, 0, 0};
    for (unsigned long long k = vectors * 16 + first; k < moe_buf_bytes; k += stride) moe_buf[k] = 0;
}

template <int THREADS, int ITEMS>
__global__ void __launch_bounds__(THREADS)
    moe_sort_count(const int* __restrict__ topk_ids, int entries, int experts, int num_chunks,
                   int* __restrict__ chunk_counts, unsigned char* __restrict__ moe_buf,
                   unsigned long long moe_buf_bytes) {
    extern __shared__ int histogram[];  // [experts]
    const int chunk = blockIdx.x;
    if (chunk < num_chunks) {
        int ids[ITEMS];
        moe_sort_load_ids<THREADS, ITEMS>(topk_ids, entries, experts, chunk * THREADS * ITEMS, ids);
        moe_sort_histogram<THREADS, ITEMS>(ids, experts, histogram);
        for (int e = threadIdx.x; e < experts; e += THREADS) chunk_counts[chunk * experts + e] = histogram[e];
    }
    moe_sort_zero(moe_buf, moe_buf_bytes, (unsigned long long)blockIdx.x * THREADS + threadIdx.x,
                  (unsigned long long)gridDim.x * THREADS);
}

// Places chunk `chunk`'s entries: moe_sort_scatter of the header comment. chunk_counts:
// [num_chunks][experts] in global memory; or COUNT_HERE (the one-launch kernel, one chunk) the
// shared [experts] `histogram`, which this block counts from the entries it loads anyway (one pass
// over the routing instead of two). shared: 20 bytes per expert of 8-byte aligned shared memory
// (the host's launches size it: tuner/data_gpu/moe_sorting_gpu.cpp).
template <int THREADS, int ITEMS, bool COUNT_HERE>
__device__ inline void moe_sort_place(const int* __restrict__ topk_ids, const float* __restrict__ topk_weights,
                                      int tokens, int topk, int experts, int block_m, int chunk, int num_chunks,
                                      const int* chunk_counts, int* histogram,
                                      int max_num_tokens_padded, int max_num_m_blocks,
                                      int* __restrict__ sorted_token_ids, float* __restrict__ sorted_weights,
                                      int* __restrict__ sorted_expert_ids, int* __restrict__ num_valid_ids,
                                      void* shared) {
    // A round's entries in each expert, per 32-lane group: byte g of group_counts[e] (8 groups).
    static_assert(THREADS == 256, "eight 32-lane groups: one 8-byte word of counts per expert");
    unsigned long long* group_counts = static_cast<unsigned long long*>(shared);  // [experts]
    int* expert_start = reinterpret_cast<int*>(group_counts + experts);  // [experts] first position of the segment
    int* expert_count = expert_start + experts;  // [experts] entries of the expert, all chunks
    int* cursor = expert_start + 2 * experts;    // [experts] next position for this chunk's entries
    __shared__ int group_total[THREADS / 32];

    const int entries = tokens * topk;
    const int tid = threadIdx.x;
    const int group = tid / 32, lane = tid % 32;
    const int base = chunk * THREADS * ITEMS;
    // This thread's entries of every round, loaded first so that their latency overlaps steps 1 and 2
    // instead of each round waiting for its own loads (with the rank comparisons step 3 replaced, 640
    // entries took 16.8 us on the H200; 6.9 with both changes).
    int round_ids[ITEMS];
    float round_weights[ITEMS];
    moe_sort_load_ids<THREADS, ITEMS>(topk_ids, entries, experts, base, round_ids);
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const int i = base + j * THREADS + tid;
        round_weights[j] = i < entries ? topk_weights[i] : 0.0f;
    }
    for (int e = tid; e < experts; e += THREADS) group_counts[e] = 0;
    if constexpr (COUNT_HERE) {
        moe_sort_histogram<THREADS, ITEMS>(round_ids, experts, histogram);
        chunk_counts = histogram;
    }

    // 1. Each thread owns a contiguous run of experts: totals over all chunks and over the chunks
    //    before this one, then an exclusive scan of the padded totals gives the segment starts.
    const int per_thread = (experts + THREADS - 1) / THREADS;
    const int e_begin = min(experts, tid * per_thread);
    const int e_end = min(experts, e_begin + per_thread);
    int padded_sum = 0;
    for (int e = e_begin; e < e_end; ++e) {
        int before = 0, total = 0;
        for (int c = 0; c < num_chunks; ++c) {
            const int n = chunk_counts[c * experts + e];
            total += n;
            before += c < chunk ? n : 0;
        }
        expert_count[e] = total;
        cursor[e] = before;
        padded_sum += (total + block_m - 1) / block_m * block_m;
    }
    // The scan in each 32-lane group by lane shuffles, then across the groups' totals: one barrier
    // (a scan over all threads through shared memory took 16).
    int inclusive = padded_sum;
    for (int offset = 1; offset < 32; offset *= 2) {
        const int up = int(mx_shfl(moetune_u32(inclusive), lane >= offset ? lane - offset : lane));
        if (lane >= offset) inclusive += up;
    }
    if (lane == 31) group_total[group] = inclusive;
    __syncthreads();
    int start = inclusive - padded_sum, used = 0;
    for (int g = 0; g < THREADS / 32; ++g) {
        const int t = group_total[g];
        start += g < group ? t : 0;
        used += t;
    }
    for (int e = e_begin; e < e_end; ++e) {
        expert_start[e] = start;
        cursor[e] += start;
        start += (expert_count[e] + block_m - 1) / block_m * block_m;
    }
    __syncthreads();

    // 2. Block 0: everything that is not a routed entry.
    if (chunk == 0) {
        const int sentinel = (topk << 24) | tokens;
        if (tid == 0) {
            num_valid_ids[0] = used;
            num_valid_ids[1] = tokens;
        }
        for (int e = e_begin; e < e_end; ++e) {
            const int begin = expert_start[e];
            const int padded = (expert_count[e] + block_m - 1) / block_m * block_m;
            for (int p = begin + expert_count[e]; p < begin + padded; ++p) {
                sorted_token_ids[p] = sentinel;
                sorted_weights[p] = 0.0f;
            }
            for (int b = begin / block_m; b < (begin + padded) / block_m; ++b) sorted_expert_ids[b] = e;
        }
        for (int p = used + tid; p < max_num_tokens_padded; p += THREADS) {
            sorted_token_ids[p] = sentinel;
            sorted_weights[p] = 0.0f;
        }
        for (int b = used / block_m + tid; b < max_num_m_blocks; b += THREADS) sorted_expert_ids[b] = -1;
    }

    // 3. This chunk's entries, in order, ITEMS rounds of THREADS. An entry's rank in its expert within
    //    the round = the lanes of its 32-lane group before it with the same expert (one vote per bit
    //    of the expert id) + the round's entries of that expert in the earlier groups (their counts,
    //    one byte per group, written by each group's first lane of the expert). Comparing each entry
    //    with every earlier one of its round took 64 shared-memory reads and ~4 operations per pair.
    const int id_bits = 32 - __clz(experts);  // expert + 1 (0: no entry) fits in these bits
    for (int j = 0; j < ITEMS; ++j) {
        const int first = base + j * THREADS;
        if (first >= entries) break;  // the same for every thread of the block
        const int i = first + tid;
        const int e = round_ids[j];
        moetune_u32 same = 0xFFFFFFFFu;
        for (int b = 0; b < id_bits; ++b) {
            const bool bit = ((e + 1) >> b) & 1;
            const moetune_u32 votes = mx_ballot(bit);
            same &= bit ? votes : ~votes;
        }
        const moetune_u32 same_before = same & ((1u << lane) - 1u);
        const bool group_first = e >= 0 && same_before == 0;
        unsigned char* counts = reinterpret_cast<unsigned char*>(group_counts + (e >= 0 ? e : 0));
        if (group_first) counts[group] = static_cast<unsigned char>(__popc(same));
        __syncthreads();
        if (e >= 0) {
            // Bytes of the groups before this one, summed by one multiply (the sum is at most 7 * 32).
            const unsigned long long earlier = group_counts[e] & ((1ull << (8 * group)) - 1ull);
            const int rank = int((earlier * 0x0101010101010101ull) >> 56) + __popc(same_before);
            const int p = cursor[e] + rank;
            sorted_token_ids[p] = ((i % topk) << 24) | (i / topk);
            sorted_weights[p] = round_weights[j];
        }
        __syncthreads();  // every thread has read cursor[] and the counts of this round
        if (group_first) {
            atomicAdd(&cursor[e], __popc(same));  // a sum: the same whatever the order
            counts[group] = 0;
        }
        __syncthreads();  // cursor[] and the counts are ready for the next round
    }
}

template <int THREADS, int ITEMS>
__global__ void __launch_bounds__(THREADS)
    moe_sort_scatter(const int* __restrict__ topk_ids, const float* __restrict__ topk_weights, int tokens, int topk,
                     int experts, int block_m, int num_chunks, const int* __restrict__ chunk_counts,
                     int max_num_tokens_padded, int max_num_m_blocks, int* __restrict__ sorted_token_ids,
                     float* __restrict__ sorted_weights, int* __restrict__ sorted_expert_ids,
                     int* __restrict__ num_valid_ids) {
    extern __shared__ unsigned long long shared[];  // moe_sort_place's
    moe_sort_place<THREADS, ITEMS, false>(topk_ids, topk_weights, tokens, topk, experts, block_m, blockIdx.x,
                                          num_chunks, chunk_counts, nullptr, max_num_tokens_padded, max_num_m_blocks,
                                          sorted_token_ids, sorted_weights, sorted_expert_ids, num_valid_ids, shared);
}

template <int THREADS, int ITEMS>
__global__ void __launch_bounds__(THREADS)
    moe_sort_one_chunk(const int* __restrict__ topk_ids, const float* __restrict__ topk_weights, int tokens,
                       int topk, int experts, int block_m, int max_num_tokens_padded, int max_num_m_blocks,
                       int* __restrict__ sorted_token_ids, float* __restrict__ sorted_weights,
                       int* __restrict__ sorted_expert_ids, int* __restrict__ num_valid_ids,
                       unsigned char* __restrict__ moe_buf, unsigned long long moe_buf_bytes) {
    // moe_sort_place's arrays (8-byte aligned at the start), then the histogram [experts].
    extern __shared__ unsigned long long shared[];
    if (blockIdx.x == 0) {
        int* histogram = reinterpret_cast<int*>(shared + experts) + 3 * experts;
        moe_sort_place<THREADS, ITEMS, true>(topk_ids, topk_weights, tokens, topk, experts, block_m, 0, 1, nullptr,
                                             histogram, max_num_tokens_padded, max_num_m_blocks, sorted_token_ids,
                                             sorted_weights, sorted_expert_ids, num_valid_ids, shared);
    } else {
        moe_sort_zero(moe_buf, moe_buf_bytes, (unsigned long long)(blockIdx.x - 1) * THREADS + threadIdx.x,
                      (unsigned long long)(gridDim.x - 1) * THREADS);
    }
}
