#include "kernels/supported_shape.h"

#include <limits>

#include "kernels/static_checks.h"

namespace moetune::kernels {
namespace {

// What the templates implement, as AITER writes it (aiter-fmoe-format.md §1.1).
constexpr std::string_view kActivation = "ActivationType.Silu";
constexpr std::string_view kOutDtype = "torch.bfloat16";
constexpr std::string_view kActDtype = "torch.float8_e4m3fn";
constexpr std::string_view kWeightDtype = "torch.float4_e2m1fn_x2";
constexpr std::string_view kQuantType = "QuantType.per_1x32";

std::optional<std::string> unsupported_reason(const table::TableShape& r) {
    auto expect = [](std::string_view what, const std::string& value, std::string_view supported) {
        return "unsupported " + std::string(what) + " " + value + " (moetune's kernels implement " +
               std::string(supported) + ")";
    };
    if (r.q_dtype_a != kActDtype || r.q_dtype_w != kWeightDtype || r.q_type != kQuantType)
        return "unsupported quantisation " + r.q_dtype_a + " x " + r.q_dtype_w + " " + r.q_type +
               " (moetune's kernels implement a8w4: " + std::string(kActDtype) + " x " + std::string(kWeightDtype) +
               " " + std::string(kQuantType) + ")";
    if (!r.use_g1u1) return std::string("use_g1u1 0 is unsupported (only fused gate/up W1, g1u1, is tunable)");
    if (r.doweight_stage1) return std::string("doweight_stage1 1 is unsupported (the routing weight is applied in stage 2)");
    if (r.act_type != kActivation) return expect("act_type", r.act_type, kActivation);
    if (r.dtype != kOutDtype) return expect("dtype", r.dtype, kOutDtype);
    return std::nullopt;
}

}  // namespace

std::optional<data::MoeShape> supported_moe_shape(const table::TableShape& row, std::string* why_not) {
    auto reject = [&](std::string reason) -> std::optional<data::MoeShape> {
        if (why_not) *why_not = std::move(reason);
        return std::nullopt;
    };
    if (auto reason = unsupported_reason(row)) return reject(*reason);
    constexpr long long kIntMax = std::numeric_limits<int>::max();
    for (long long v : {row.token, row.model_dim, row.inter_dim, row.expert, row.topk})
        if (v > kIntMax) return reject("size " + std::to_string(v) + " is out of range");
    data::MoeShape shape;
    shape.tokens = static_cast<int>(row.token);
    shape.model_dim = static_cast<int>(row.model_dim);
    shape.inter_dim = static_cast<int>(row.inter_dim);
    shape.experts = static_cast<int>(row.expert);
    shape.topk = static_cast<int>(row.topk);
    if (auto err = shape_error(shape)) return reject(*err);
    return shape;
}

}  // namespace moetune::kernels
