// Linked only into GPU test binaries, so the test support library itself needs no GPU layer.
#include "gpu/device.h"
#include "support/test_env.h"

namespace moetune::test {

std::string gpu_unavailable_reason() { return moetune::gpu::unavailable_reason(); }

}  // namespace moetune::test
