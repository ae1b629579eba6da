#pragma once
// Shared-memory barrier objects (PTX mbarrier, sm_90), named barriers and register rebalancing for the warp-specialised FP8 loop
// (moe_fp8_ws_gemm.h): a producer and its consumers hand buffers back and forth through them
// without a barrier over the whole workgroup. A barrier completes a phase once `count` arrivals
// have happened; waiters name the phase they wait for by its parity (0, 1, 0, ...). Compiled only
// where wgmma is (MOETUNE_WGMMA_AVAILABLE): nothing else uses them.
#include "host_device.h"
#include "wgmma_bf16.h"

#if MOETUNE_WGMMA_AVAILABLE
__device__ inline unsigned mx_shared_address(const void* p) { return unsigned(__cvta_generic_to_shared(p)); }

// One thread, before any other thread uses the barrier (a __syncthreads between).
__device__ inline void mx_mbarrier_init(moetune_u64* barrier, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(mx_shared_address(barrier)), "r"(count)
                 : "memory");
}

// One arrival (release: this thread's earlier writes are visible to whoever waits on the phase).
__device__ inline void mx_mbarrier_arrive(moetune_u64* barrier) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(mx_shared_address(barrier)) : "memory");
}

// One arrival once every cp.async this thread has issued so far has landed (.noinc: it is one of the
// `count` arrivals the phase expects).
__device__ inline void mx_mbarrier_arrive_on_copies(moetune_u64* barrier) {
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(mx_shared_address(barrier))
                 : "memory");
}

// One arrival that also makes the phase wait for `bytes` more of bulk copies (mx_bulk_copy) to land.
__device__ inline void mx_mbarrier_arrive_expect_bytes(moetune_u64* barrier, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(mx_shared_address(barrier)),
                 "r"(bytes)
                 : "memory");
}

// An L2 policy for bulk copies of bytes no other copy will read: L2 drops them before what is read
// again. Not volatile: it has no side effects, so the compiler creates it once where it is first
// needed and drops it from the kernels that never hint a copy.
__device__ inline moetune_u64 mx_l2_evict_first_policy() {
    moetune_u64 policy;
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
    return policy;
}

// One bulk copy (the tensor memory accelerator, no tensor map) of `bytes` (a multiple of 16, both
// addresses 16-byte aligned) from global to shared memory, counted on `barrier` as it lands;
// with `l2_policy` (mx_l2_evict_first_policy) under that L2 cache hint.
__device__ inline void mx_bulk_copy(unsigned char* shared, const void* global, unsigned bytes, moetune_u64* barrier,
                                    const moetune_u64* l2_policy = nullptr) {
    if (l2_policy) {
        asm volatile(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], %2, [%3], "
            "%4;\n" ::"r"(mx_shared_address(shared)),
            "l"(global), "r"(bytes), "r"(mx_shared_address(barrier)), "l"(*l2_policy)
            : "memory");
        return;
    }
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
            mx_shared_address(shared)),
        "l"(global), "r"(bytes), "r"(mx_shared_address(barrier))
        : "memory");
}

// Waits until the phase of this parity has completed (acquire: the arrivals' writes are visible).
__device__ inline void mx_mbarrier_wait(moetune_u64* barrier, unsigned parity) {
    const unsigned address = mx_shared_address(barrier);
    unsigned done = 0;
    do {
        asm volatile(
            "{\n.reg .pred done;\nmbarrier.try_wait.parity.shared::cta.b64 done, [%1], %2;\nselp.u32 %0, 1, 0, done;\n}\n"
            : "=r"(done)
            : "r"(address), "r"(parity)
            : "memory");
    } while (!done);
}

// Every thread of the warpgroup: this warpgroup's registers a thread become COUNT (a multiple of 8,
// 24-256), given back to (INCREASE false) or taken from (true) the SM's pool.
template <bool INCREASE, int COUNT>
__device__ inline void mx_set_max_registers() {
    if constexpr (INCREASE) asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(COUNT));
    else asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(COUNT));
}

// A barrier over `threads` threads (whole warps) of the workgroup, named `id` (0 is __syncthreads').
__device__ inline void mx_named_barrier(int id, int threads) {
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
#endif
