#pragma once
// An HBM bandwidth probe for `moetune bench --hbm-tbps 0`: device-to-device copies through the
// runtime's memcpy (bytes read + bytes written / time). The runtime may run them on the copy engines,
// which on the H200 reach 2.77 TB/s against the 4.27 TB/s of a copy by SM kernels
// (performance-anchors.md), so bench takes the latter as its default.
#include "gpu/stream.h"

namespace moetune::bench {

// Copies a 1 GiB buffer into another in graph replays on the current device; the median TB/s.
double measure_copy_tbps(const gpu::Stream& stream);

}  // namespace moetune::bench
