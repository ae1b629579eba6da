#pragma once
// Deliberately broken kernel variants, compiled in only for moetune's own tests (the test-only
// flag --test-break, which adds -DMOETUNE_TEST_BREAK=N): they prove that validation catches a
// wrong kernel and that the worker process model survives a faulting or hanging one.
//   1 wrong: every 5th output row is corrupted (a localised error, AITER #5032's case)
//   2 fault: an illegal global store
//   3 hang:  the kernel never finishes (per-task timeout)
#ifndef MOETUNE_TEST_BREAK
#define MOETUNE_TEST_BREAK 0
#endif

__device__ inline float mx_test_break_value(float v, long long out_row) {
#if MOETUNE_TEST_BREAK == 1
    return out_row % 5 == 0 ? 1.f - v : v;
#else
    (void)out_row;
    return v;
#endif
}

__device__ inline void mx_test_break_entry() {
#if MOETUNE_TEST_BREAK == 2
    if (threadIdx.x == 0) *reinterpret_cast<volatile int*>(16) = 1;
#elif MOETUNE_TEST_BREAK == 3
    for (;;) asm volatile("");
#endif
}
