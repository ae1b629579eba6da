#include "table/schema.h"

#include <algorithm>

namespace moetune::table {
namespace {

template <std::size_t N>
bool contains(const std::array<std::string_view, N>& set, std::string_view value) {
    return std::find(set.begin(), set.end(), value) != set.end();
}

// ActivationType in csrc/include/aiter_enum.h (values -1..3).
constexpr std::array<std::string_view, 5> kActivations = {
    "ActivationType.No", "ActivationType.Silu", "ActivationType.Gelu", "ActivationType.Swiglu",
    "ActivationType.Situv2"};

// str() of every torch dtype in FmoeTuner.dtype2bpe_dict (metrics.cpp gives their byte sizes).
constexpr std::array<std::string_view, 13> kTorchDtypes = {
    "torch.float16",        "torch.bfloat16",         "torch.int16",         "torch.float8_e4m3fn",
    "torch.float8_e4m3fnuz", "torch.float8_e8m0fnu",  "torch.int8",          "torch.int32",
    "torch.float4_e2m1fn_x2", "torch.uint8",          "torch.uint32",        "torch.float32",
    "torch.int4"};

constexpr std::array<std::string_view, 6> kQuantTypes = {
    "QuantType.No",       "QuantType.per_Tensor", "QuantType.per_Token",
    "QuantType.per_1x32", "QuantType.per_1x128",  "QuantType.per_128x128"};

constexpr std::array<std::string_view, 14> kResultColumns = {
    col::block_m, col::ksplit, col::us1,        col::kernel_name1, col::err1, col::us2,   col::kernel_name2,
    col::err2,    col::us,     col::run_1stage, col::xbf16,        col::flat, col::tflops, col::bw};

constexpr std::array<std::string_view, 6> kIntegerKeyColumns = {
    col::cu_num, col::token, col::model_dim, col::inter_dim, col::expert, col::topk};

constexpr std::array<std::string_view, 5> kFlagColumns = {
    col::use_g1u1, col::doweight_stage1, col::run_1stage, col::xbf16, col::flat};

}  // namespace

bool is_result_column(std::string_view column) { return contains(kResultColumns, column); }
bool is_integer_key_column(std::string_view column) { return contains(kIntegerKeyColumns, column); }
bool is_flag_column(std::string_view column) { return contains(kFlagColumns, column); }
bool is_known_activation(std::string_view value) { return contains(kActivations, value); }
bool is_known_torch_dtype(std::string_view value) { return contains(kTorchDtypes, value); }
bool is_known_quant_type(std::string_view value) { return contains(kQuantTypes, value); }
bool is_empty_kernel_slot(std::string_view value) { return value.empty() || value == "Null"; }

}  // namespace moetune::table
