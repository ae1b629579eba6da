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
//                     THREADS entries, each entry's rank among the same expert found by comparing
//                     with the earlier entries of its round. No atomics decide a position, so the
//                     output is the same on every run. Block 0 also writes the padding, the block
//                     -> expert table, num_valid_ids and the unused tail (sentinel entries with
//                     weight 0, expert id -1, as the CPU sort and AITER's torch reference do).
//   moe_sort_one_chunk  both in one launch when the routing is one chunk (M*topk <= THREADS*ITEMS,
//                     every decode bucket): block 0 counts into shared memory and places from
//                     there, the other blocks zero moe_buf. At a few tokens the sort sits on the
//                     MoE's critical path and a launch is a good part of its time.
//
// Entries whose expert id is outside [0, experts) are dropped (routing is validated on the host;
// this only keeps a bad id from writing out of bounds).
#include "common/host_device.h"

// 16 bytes: moe_buf zeroing, and four expert ids of a round at once.
struct alignas(16) moe_sort_word4 {
    unsigned x, y, z, w;
};

__device__ inline bool moe_sort_valid_expert(int e, int experts) { return e >= 0 && e < experts; }

// The per-expert histogram of entries [base, base + THREADS*ITEMS) into `histogram` (shared
// memory, [experts]); ends with a barrier, so every thread may read all of it.
template <int THREADS, int ITEMS>
__device__ inline void moe_sort_histogram(const int* __restrict__ topk_ids, int entries, int experts, int base,
                                          int* histogram) {
    for (int e = threadIdx.x; e < experts; e += THREADS) histogram[e] = 0;
    __syncthreads();
    for (int j = 0; j < ITEMS; ++j) {
        const int i = base + j * THREADS + threadIdx.x;
        if (i < entries) {
            const int e = topk_ids[i];
            if (moe_sort_valid_expert(e, experts)) atomicAdd(&histogram[e], 1);
        }
    }
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
        moe_sort_histogram<THREADS, ITEMS>(topk_ids, entries, experts, chunk * THREADS * ITEMS, histogram);
        for (int e = threadIdx.x; e < experts; e += THREADS) chunk_counts[chunk * experts + e] = histogram[e];
    }
    moe_sort_zero(moe_buf, moe_buf_bytes, (unsigned long long)blockIdx.x * THREADS + threadIdx.x,
                  (unsigned long long)gridDim.x * THREADS);
}

// Places chunk `chunk`'s entries: moe_sort_scatter of the header comment. chunk_counts:
// [num_chunks][experts], global or shared memory; shared: [3 * experts] ints of shared memory.
template <int THREADS, int ITEMS>
__device__ inline void moe_sort_place(const int* __restrict__ topk_ids, const float* __restrict__ topk_weights,
                                      int tokens, int topk, int experts, int block_m, int chunk, int num_chunks,
                                      const int* chunk_counts, int max_num_tokens_padded, int max_num_m_blocks,
                                      int* __restrict__ sorted_token_ids, float* __restrict__ sorted_weights,
                                      int* __restrict__ sorted_expert_ids, int* __restrict__ num_valid_ids,
                                      int* shared) {
    int* expert_start = shared;             // [experts] first position of the expert's segment
    int* expert_count = shared + experts;   // [experts] entries of the expert, all chunks
    int* cursor = shared + 2 * experts;     // [experts] next position for this chunk's entries
    // The current round's expert ids (-1: no entry); 16-byte aligned for the rank loop's vector reads.
    __shared__ __attribute__((aligned(16))) int round_experts[THREADS];
    __shared__ int scan[THREADS];

    const int entries = tokens * topk;
    const int tid = threadIdx.x;

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
    scan[tid] = padded_sum;
    __syncthreads();
    for (int offset = 1; offset < THREADS; offset *= 2) {
        const int add = tid >= offset ? scan[tid - offset] : 0;
        __syncthreads();
        scan[tid] += add;
        __syncthreads();
    }
    int start = scan[tid] - padded_sum;
    for (int e = e_begin; e < e_end; ++e) {
        expert_start[e] = start;
        cursor[e] += start;
        start += (expert_count[e] + block_m - 1) / block_m * block_m;
    }
    const int used = scan[THREADS - 1];
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

    // 3. This chunk's entries, in order, ITEMS rounds of THREADS. A round compares only with its
    //    valid entries, four at a time (at one token 5 entries; comparing each with all 256 of 4
    //    rounds, one int per shared-memory read, the kernel took ~20 us of a ~88 us MoE on the H200).
    const int base = chunk * THREADS * ITEMS;
    for (int j = 0; j < ITEMS; ++j) {
        const int first = base + j * THREADS;
        const int valid = min(THREADS, entries - first);
        if (valid <= 0) break;  // the same for every thread of the block
        const int i = first + tid;
        int e = i < entries ? topk_ids[i] : -1;
        if (!moe_sort_valid_expert(e, experts)) e = -1;
        round_experts[tid] = e;
        __syncthreads();
        int rank = 0;
        bool last = true;
        const moe_sort_word4* quads = reinterpret_cast<const moe_sort_word4*>(round_experts);
#pragma unroll 4
        for (int q = 0; q < (valid + 3) / 4; ++q) {
            const moe_sort_word4 v = quads[q];  // entries past `valid` are -1 and match no expert
            const int ids[4] = {int(v.x), int(v.y), int(v.z), int(v.w)};
#pragma unroll
            for (int c = 0; c < 4; ++c) {
                const int k = 4 * q + c;
                const bool same = ids[c] == e;
                rank += (same && k < tid) ? 1 : 0;
                last = last && !(same && k > tid);
            }
        }
        if (e >= 0) {
            const int p = cursor[e] + rank;
            sorted_token_ids[p] = ((i % topk) << 24) | (i / topk);
            sorted_weights[p] = topk_weights[i];
        }
        __syncthreads();  // every thread has read cursor[] for this round
        if (e >= 0 && last) cursor[e] += rank + 1;
        __syncthreads();  // cursor[] and round_experts[] are ready for the next round
    }
}

template <int THREADS, int ITEMS>
__global__ void __launch_bounds__(THREADS)
    moe_sort_scatter(const int* __restrict__ topk_ids, const float* __restrict__ topk_weights, int tokens, int topk,
                     int experts, int block_m, int num_chunks, const int* __restrict__ chunk_counts,
                     int max_num_tokens_padded, int max_num_m_blocks, int* __restrict__ sorted_token_ids,
                     float* __restrict__ sorted_weights, int* __restrict__ sorted_expert_ids,
                     int* __restrict__ num_valid_ids) {
    extern __shared__ int shared[];  // [3 * experts]
    moe_sort_place<THREADS, ITEMS>(topk_ids, topk_weights, tokens, topk, experts, block_m, blockIdx.x, num_chunks,
                                   chunk_counts, max_num_tokens_padded, max_num_m_blocks, sorted_token_ids,
                                   sorted_weights, sorted_expert_ids, num_valid_ids, shared);
}

template <int THREADS, int ITEMS>
__global__ void __launch_bounds__(THREADS)
    moe_sort_one_chunk(const int* __restrict__ topk_ids, const float* __restrict__ topk_weights, int tokens,
                       int topk, int experts, int block_m, int max_num_tokens_padded, int max_num_m_blocks,
                       int* __restrict__ sorted_token_ids, float* __restrict__ sorted_weights,
                       int* __restrict__ sorted_expert_ids, int* __restrict__ num_valid_ids,
                       unsigned char* __restrict__ moe_buf, unsigned long long moe_buf_bytes) {
    extern __shared__ int shared[];  // [4 * experts]: the histogram, then moe_sort_place's arrays
    if (blockIdx.x == 0) {
        moe_sort_histogram<THREADS, ITEMS>(topk_ids, tokens * topk, experts, 0, shared);
        moe_sort_place<THREADS, ITEMS>(topk_ids, topk_weights, tokens, topk, experts, block_m, 0, 1, shared,
                                       max_num_tokens_padded, max_num_m_blocks, sorted_token_ids, sorted_weights,
                                       sorted_expert_ids, num_valid_ids, shared + experts);
    } else {
        moe_sort_zero(moe_buf, moe_buf_bytes, (unsigned long long)(blockIdx.x - 1) * THREADS + threadIdx.x,
                      (unsigned long long)(gridDim.x - 1) * THREADS);
    }
}
