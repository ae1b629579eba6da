#pragma once
// The tile walk of the persistent kernels (mx_persistent_tiles, shared_operand_layout.h): workgroup b
// starts at tile b and then takes the next tile not yet taken, so that the tiles in flight stay
// together in the order the hardware would launch them (a walk of fixed strides drifted apart and
// lost the L2 sharing and the balance of the hardware's order: 4-8 % slower at 4096 tokens, 4-22 %
// at 16384, docs/kernel-design.md).
//
// The counters belong to the compiled module, zero when it loads, and are back at zero when a
// launch completes: the last workgroup to finish resets them. A launch reads them only after
// griddepcontrol.wait (the launch before it has completed) and one launch of a module runs at a
// time on a device (the tuner's measurements and the library's stream order), so launches never
// share them.

// [0]: tiles taken past the grid's first gridDim.x; [1]: workgroups that take no more.
__device__ unsigned int mx_tile_walk_counters[2];

// Thread 0 only: the next tile not yet taken.
__device__ inline int mx_take_tile() { return int(gridDim.x + atomicAdd(&mx_tile_walk_counters[0], 1u)); }

// Every workgroup once it takes no more tiles (thread 0 does the counting).
__device__ inline void mx_end_tile_walk() {
    if (threadIdx.x != 0) return;
    if (atomicAdd(&mx_tile_walk_counters[1], 1u) == gridDim.x - 1) {
        // Every other workgroup has taken its last tile (a workgroup's takes have returned, their
        // values used, before it counts itself here): none reads the counters again in this launch.
        atomicExch(&mx_tile_walk_counters[0], 0u);
        atomicExch(&mx_tile_walk_counters[1], 0u);
    }
}
