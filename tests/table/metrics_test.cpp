#include "support/catch.hpp"

#include "table/metrics.h"
#include "table/number_format.h"

using namespace moetune::table;

namespace {

TableShape a8w4(long long token, long long model_dim, long long inter, long long experts, long long topk,
                const char* act) {
    return {token, model_dim, inter, experts, topk, act, "torch.bfloat16", "torch.float8_e4m3fn",
            "torch.float4_e2m1fn_x2", "QuantType.per_1x32", true, false};
}

std::pair<std::string, std::string> rounded(const MoeMetrics& m) {
    return {format_rounded(m.tflops, 2), format_rounded(m.bandwidth_gbps, 2)};
}

}  // namespace

// The sample rows of reference §1.2 / §3.8, as AITER wrote them.
TEST_CASE("metrics: reproduce AITER's tflops and bw for the dsv4, kimik3 and gptoss rows") {
    CHECK(rounded(moe_metrics(a8w4(1, 7168, 512, 384, 6, "ActivationType.Silu"), 20.9291)) ==
          std::pair<std::string, std::string>{"6.31", "202009.64"});
    CHECK(rounded(moe_metrics(a8w4(2, 3584, 512, 896, 16, "ActivationType.Situv2"), 26.4885)) ==
          std::pair<std::string, std::string>{"13.3", "186213.75"});
    CHECK(rounded(moe_metrics(a8w4(1024, 3072, 3072, 128, 4, "ActivationType.Swiglu"), 360.7165)) ==
          std::pair<std::string, std::string>{"642.97", "10072.5"});
}

TEST_CASE("metrics: bytes per element follow dtype2bpe_dict") {
    CHECK(bytes_per_element("torch.float4_e2m1fn_x2") == 1.0);  // 1 byte per logical element
    CHECK(bytes_per_element("torch.float8_e4m3fnuz") == 1.0);
    CHECK(bytes_per_element("torch.bfloat16") == 2.0);
    CHECK(bytes_per_element("torch.float32") == 4.0);
    CHECK(bytes_per_element("torch.int4") == 0.5);
    CHECK_FALSE(bytes_per_element("torch.bfloat17"));
}

TEST_CASE("metrics: a failed measurement or an unknown dtype gives 0/0, as AITER writes") {
    TableShape s = a8w4(1, 7168, 512, 384, 6, "ActivationType.Silu");
    CHECK(moe_metrics(s, 0.0).tflops == 0.0);
    CHECK(moe_metrics(s, -1.0).bandwidth_gbps == 0.0);
    s.q_dtype_w = "torch.bfloat17";
    CHECK(moe_metrics(s, 20.0).tflops == 0.0);
}
