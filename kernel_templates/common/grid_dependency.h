#pragma once
// Programmatic dependent launch (NVIDIA sm_90+; gpu::LaunchShape::overlap_previous on the host):
// a kernel launched that way may start while the stream's previous kernel is still running, so that
// its launch, its setup and loads that do not depend on that kernel overlap the previous kernel's
// last wave. Elsewhere, and for a kernel launched the ordinary way, both calls do nothing.

// Blocks until the previous kernel has completed and its writes are visible.
__device__ inline void mx_wait_for_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

// Lets the next kernel (if launched with overlap) start once every workgroup of this one has called
// this or exited: called first thing, the next kernel's workgroups fill the SMs this one's last wave
// leaves idle.
__device__ inline void mx_allow_next_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}
