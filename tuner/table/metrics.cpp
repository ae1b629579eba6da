#include "table/metrics.h"

#include <array>
#include <cmath>
#include <utility>

namespace moetune::table {

std::optional<double> bytes_per_element(std::string_view torch_dtype) {
    // FmoeTuner.dtype2bpe_dict; packed fp4x2 and i4x2 count 1 byte per *logical* element there.
    static constexpr std::array<std::pair<std::string_view, double>, 13> kBpe = {{
        {"torch.float16", 2},          {"torch.bfloat16", 2},        {"torch.int16", 2},
        {"torch.float8_e4m3fn", 1},    {"torch.float8_e4m3fnuz", 1}, {"torch.float8_e8m0fnu", 1},
        {"torch.int8", 1},             {"torch.int32", 4},           {"torch.float4_e2m1fn_x2", 1},
        {"torch.uint8", 1},            {"torch.uint32", 4},          {"torch.float32", 4},
        {"torch.int4", 0.5},
    }};
    for (const auto& [name, bpe] : kBpe)
        if (name == torch_dtype) return bpe;
    return std::nullopt;
}

MoeMetrics moe_metrics(const TableShape& s, double us) {
    const auto bpe_a = bytes_per_element(s.q_dtype_a);
    const auto bpe_w = bytes_per_element(s.q_dtype_w);
    const auto bpe_out = bytes_per_element(s.dtype);
    if (!(us > 0) || !std::isfinite(us) || !bpe_a || !bpe_w || !bpe_out) return {};

    // Python evaluates these with exact integers; every product here stays below 2^53, so the
    // doubles are exact too and the divisions below see the same operands as AITER's.
    const double token = double(s.token), model_dim = double(s.model_dim), inter = double(s.inter_dim);
    const double experts = double(s.expert), topk = double(s.topk);
    const double n = s.use_g1u1 ? 2 * inter : inter;
    const double flop = token * n * model_dim * topk * 2 + topk * token * model_dim * inter * 2;
    const double bytes = token * model_dim * *bpe_a + n * model_dim * *bpe_w * experts +
                         inter * model_dim * *bpe_w * experts + token * model_dim * *bpe_out;
    return {flop / (us * 1000000), bytes / (us * 1e-6) / 1e9};
}

}  // namespace moetune::table
