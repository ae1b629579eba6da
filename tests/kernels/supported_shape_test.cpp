// Which AITER shape rows the kernels implement.
#include <string>

#include "kernels/supported_shape.h"
#include "support/catch.hpp"
#include "support/test_env.h"

using namespace moetune;
using moetune::test::contains;

namespace {
table::TableShape dsv41_row() {
    table::TableShape r;
    r.token = 32;
    r.model_dim = 5120;
    r.inter_dim = 2304;
    r.expert = 96;
    r.topk = 5;
    r.act_type = "ActivationType.Silu";
    r.dtype = "torch.bfloat16";
    r.q_dtype_a = "torch.float8_e4m3fn";
    r.q_dtype_w = "torch.float4_e2m1fn_x2";
    r.q_type = "QuantType.per_1x32";
    r.use_g1u1 = true;
    r.doweight_stage1 = false;
    return r;
}

std::string rejection(const table::TableShape& r) {
    std::string why;
    CHECK_FALSE(kernels::supported_moe_shape(r, &why));
    return why;
}

}  // namespace

TEST_CASE("an a8w4 per_1x32 g1u1 row becomes its MoE shape") {
    const auto s = kernels::supported_moe_shape(dsv41_row(), nullptr);
    REQUIRE(s);
    CHECK(s->tokens == 32);
    CHECK(s->model_dim == 5120);
    CHECK(s->inter_dim == 2304);
    CHECK(s->experts == 96);
    CHECK(s->topk == 5);
}

TEST_CASE("other precisions, layouts and bad sizes are refused with the reason") {
    table::TableShape r = dsv41_row();
    r.q_dtype_a = "torch.float8_e4m3fnuz";
    CHECK(contains(rejection(r), "unsupported quantisation torch.float8_e4m3fnuz"));
    r = dsv41_row();
    r.q_type = "QuantType.per_1x128";
    CHECK(contains(rejection(r), "unsupported quantisation"));
    r = dsv41_row();
    r.q_dtype_w = "torch.float8_e4m3fn";
    CHECK(contains(rejection(r), "unsupported quantisation"));
    r = dsv41_row();
    r.use_g1u1 = false;
    CHECK(contains(rejection(r), "use_g1u1 0"));
    r = dsv41_row();
    r.doweight_stage1 = true;
    CHECK(contains(rejection(r), "doweight_stage1 1"));
    r = dsv41_row();
    r.act_type = "ActivationType.Swiglu";
    CHECK(contains(rejection(r), "unsupported act_type ActivationType.Swiglu"));
    r = dsv41_row();
    r.dtype = "torch.float16";
    CHECK(contains(rejection(r), "unsupported dtype torch.float16"));
    r = dsv41_row();
    r.inter_dim = 2336;
    CHECK(contains(rejection(r), "inter_dim 2336 is not a positive multiple of 128"));
    r = dsv41_row();
    r.model_dim = 1LL << 40;
    CHECK(contains(rejection(r), "out of range"));
}
