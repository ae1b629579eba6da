#pragma once
// Column names and known enum strings of AITER's fused-MoE tables
// (../shared/reference/aiter-fmoe-format.md §1). Names are compared exactly, as pandas does.
#include <array>
#include <string_view>

namespace moetune::table {

namespace col {
inline constexpr std::string_view gfx = "gfx";
inline constexpr std::string_view cu_num = "cu_num";
inline constexpr std::string_view token = "token";
inline constexpr std::string_view model_dim = "model_dim";
inline constexpr std::string_view inter_dim = "inter_dim";
inline constexpr std::string_view expert = "expert";
inline constexpr std::string_view topk = "topk";
inline constexpr std::string_view act_type = "act_type";
inline constexpr std::string_view dtype = "dtype";
inline constexpr std::string_view q_dtype_a = "q_dtype_a";
inline constexpr std::string_view q_dtype_w = "q_dtype_w";
inline constexpr std::string_view q_type = "q_type";
inline constexpr std::string_view use_g1u1 = "use_g1u1";
inline constexpr std::string_view doweight_stage1 = "doweight_stage1";
inline constexpr std::string_view block_m = "block_m";
inline constexpr std::string_view ksplit = "ksplit";
inline constexpr std::string_view us1 = "us1";
inline constexpr std::string_view kernel_name1 = "kernelName1";
inline constexpr std::string_view err1 = "err1";
inline constexpr std::string_view us2 = "us2";
inline constexpr std::string_view kernel_name2 = "kernelName2";
inline constexpr std::string_view err2 = "err2";
inline constexpr std::string_view us = "us";
inline constexpr std::string_view run_1stage = "run_1stage";
inline constexpr std::string_view xbf16 = "xbf16";
inline constexpr std::string_view flat = "flat";
inline constexpr std::string_view tflops = "tflops";
inline constexpr std::string_view bw = "bw";
inline constexpr std::string_view tag = "_tag";
}  // namespace col

// The untuned file's columns: the shape part of every key (AITER's dedup key starts from these).
inline constexpr std::array<std::string_view, 12> kShapeColumns = {
    col::token, col::model_dim, col::inter_dim, col::expert, col::topk, col::act_type,
    col::dtype, col::q_dtype_a, col::q_dtype_w, col::q_type, col::use_g1u1, col::doweight_stage1};

// What the current tuner writes (gfx first, 14 key + 14 result columns, no _tag).
inline constexpr std::array<std::string_view, 28> kTunedColumns = {
    col::gfx,   col::cu_num, col::token,        col::model_dim, col::inter_dim,    col::expert,
    col::topk,  col::act_type, col::dtype,      col::q_dtype_a, col::q_dtype_w,    col::q_type,
    col::use_g1u1, col::doweight_stage1, col::block_m, col::ksplit, col::us1,       col::kernel_name1,
    col::err1,  col::us2,    col::kernel_name2, col::err2,      col::us,           col::run_1stage,
    col::xbf16, col::flat,   col::tflops,       col::bw};

// The _tag that AITER's runtime drops before building its lookup dicts.
inline constexpr std::string_view kFallbackTag = "flydsl_fallback";

// A result column (block_m .. bw) marks a table as tuned; untuned files have only key columns.
bool is_result_column(std::string_view column);
// Integer-valued key columns (token, sizes, cu_num): compared as numbers.
bool is_integer_key_column(std::string_view column);
// 0/1 columns that pandas may also read as True/False.
bool is_flag_column(std::string_view column);

bool is_known_activation(std::string_view value);  // ActivationType.No/Silu/Gelu/Swiglu/Situv2
bool is_known_torch_dtype(std::string_view value); // the dtypes in AITER's dtype2bpe_dict
bool is_known_quant_type(std::string_view value);  // QuantType.No/per_Tensor/.../per_128x128
// A kernel slot left empty: "" or "Null" (1-stage rows have no stage-2 kernel).
bool is_empty_kernel_slot(std::string_view value);

}  // namespace moetune::table
