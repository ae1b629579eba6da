#include "table/cell_rules.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "table/cell_value.h"
#include "table/schema.h"

namespace moetune::table {
namespace {

std::string quoted(std::string_view column, std::string_view value) {
    return std::string(column) + " '" + std::string(value) + "'";
}

bool is_one_of(std::string_view column, std::initializer_list<std::string_view> names) {
    return std::find(names.begin(), names.end(), column) != names.end();
}

std::optional<std::string> whole_number_at_least(std::string_view column, std::string_view value, long long min) {
    const std::optional<long long> v = parse_integer(value);
    if (v && *v >= min) return std::nullopt;
    return quoted(column, value) + " is not a whole number >= " + std::to_string(min);
}

// gfx942, gfx950, gfx90a, gfx1250: "gfx" and lower-case hex digits.
// AMD archs (gfx950, gfx90a) and, for tables tuned on NVIDIA GPUs, the compute capability as
// moetune stamps it (sm_90): AITER never looks those rows up on AMD, but the key stays unique.
bool is_gfx_name(std::string_view value) {
    const auto all_of_from = [&](size_t start, auto pred) {
        return value.size() > start && std::all_of(value.begin() + long(start), value.end(), pred);
    };
    if (value.substr(0, 3) == "gfx")
        return all_of_from(3, [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f'); });
    if (value.substr(0, 3) == "sm_")
        return all_of_from(3, [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
    return false;
}

}  // namespace

std::optional<std::string> cell_problem(std::string_view column, std::string_view value) {
    if (column == col::token) return whole_number_at_least(column, value, 1);
    if (is_one_of(column, {col::model_dim, col::inter_dim, col::expert, col::topk, col::cu_num, col::block_m}))
        return whole_number_at_least(column, value, 1);
    if (column == col::ksplit) return whole_number_at_least(column, value, -1);  // -1: the kernel decides
    if (column == col::act_type && !is_known_activation(value))
        return quoted(column, value) + " is not an ActivationType (No, Silu, Gelu, Swiglu, Situv2)";
    if (is_one_of(column, {col::dtype, col::q_dtype_a, col::q_dtype_w}) && !is_known_torch_dtype(value))
        return quoted(column, value) + " is not a torch dtype AITER knows";
    if (column == col::q_type && !is_known_quant_type(value))
        return quoted(column, value) + " is not a QuantType (No, per_Tensor, per_Token, per_1x32, per_1x128, per_128x128)";
    if (is_flag_column(column) && !parse_flag(value)) return quoted(column, value) + " is not 0/1 or True/False";

    if (is_blank(value)) return std::nullopt;  // the result columns below may be left blank
    if (is_one_of(column, {col::us1, col::us2, col::us})) {
        const std::optional<double> us = parse_number(value);
        if (!us || *us < 0) return quoted(column, value) + " is not a time in microseconds (a number >= 0)";
    }
    if (is_one_of(column, {col::err1, col::err2})) {
        const std::optional<double> err = parse_error_ratio(value);
        if (!err || *err < 0) return quoted(column, value) + " is not an error like 0.0% or 5.3%";
    }
    if (is_one_of(column, {col::tflops, col::bw}) && !parse_number(value))
        return quoted(column, value) + " is not a number";
    if (column == col::gfx && !is_gfx_name(value)) return quoted(column, value) + " is not an arch name like gfx950 (or sm_90 for NVIDIA)";
    return std::nullopt;
}

}  // namespace moetune::table
