#pragma once
// Shared by the runtime tests: the fixture tables (tests/fixtures/runtime) and the shape keys they use.
#include <string>

#include "moetune/tuned_tables.h"
#include "support/test_env.h"

namespace moetune::test {

inline std::string runtime_fixture(const std::string& name) { return (fixtures_dir() / "runtime" / name).string(); }

// The a8w4 key (MoeShapeKey's defaults) of a shape.
inline MoeShapeKey shape_key(int model_dim, int inter_dim, int experts, int topk) {
    MoeShapeKey k;
    k.model_dim = model_dim;
    k.inter_dim = inter_dim;
    k.experts = experts;
    k.topk = topk;
    return k;
}

// DeepSeek-V4.1-Flash EP4, the shape of the fixtures' rows.
inline MoeShapeKey dsv41_flash_key() { return shape_key(5120, 2304, 96, 5); }

}  // namespace moetune::test
