#pragma once
// The compiled and loaded data kernels (sort, synthetic inputs, MXFP8 quant and widening, reference
// MoE) for the current device. Built once per process and device; every launcher in tuner/data_gpu
// takes one. The tile parameters live here, in the name expressions, next to the launch shapes that
// depend on them (the *_gpu.cpp launchers).
#include <map>
#include <string>
#include <vector>

#include "gpu/module.h"
#include "rtc/compile_request.h"
#include "rtc/kernel_cache.h"

namespace moetune::data::kernel_names {
// moe_sort.hip: 256 threads, 4 rounds: a chunk of 1024 routing entries per block.
inline constexpr int kSortThreads = 256;
inline constexpr int kSortItems = 4;
inline constexpr const char* kSortCount = "moe_sort_count<256, 4>";
inline constexpr const char* kSortScatter = "moe_sort_scatter<256, 4>";
inline constexpr const char* kSortOneChunk = "moe_sort_one_chunk<256, 4>";  // both, for one chunk
// synthetic_weights.hip, mxfp8_quant.hip, and the element-wise reference kernels: 256 threads.
inline constexpr int kElementwiseThreads = 256;
inline constexpr const char* kSynthFp4 = "synth_fp4_bytes<256>";
inline constexpr const char* kSynthE8m0 = "synth_e8m0_bytes<256>";
inline constexpr const char* kSynthHidden = "synth_hidden<256>";
// mxfp8_quant<threads, input type, round to bf16 first, unit scales, interleaved words>
inline constexpr const char* kQuantF32 = "mxfp8_quant<256, float, false, false, false>";
inline constexpr const char* kQuantF32Unit = "mxfp8_quant<256, float, false, true, false>";
inline constexpr const char* kQuantF32Bf16 = "mxfp8_quant<256, float, true, false, false>";
inline constexpr const char* kQuantF32Bf16Unit = "mxfp8_quant<256, float, true, true, false>";
inline constexpr const char* kQuantBf16 = "mxfp8_quant<256, unsigned short, false, false, false>";
inline constexpr const char* kQuantBf16Unit = "mxfp8_quant<256, unsigned short, false, true, false>";
// ... with each 32-byte block's words interleaved (the register-fed FP8 kernels reading MXFP8 rows, _mxr).
inline constexpr const char* kQuantBf16Interleaved = "mxfp8_quant<256, unsigned short, false, false, true>";
// mxfp8_quant_wide<threads>: bf16 -> MXFP8 (dynamic scales) -> the wide layout, in one pass.
inline constexpr const char* kQuantBf16Wide = "mxfp8_quant_wide<256>";
// mxfp8_quant_rebased<threads, groups a thread, interleave>: bf16 -> MXFP8 -> rebased rows, in one pass;
// a workgroup a row, one group of 8 elements a lane up to 4096 columns (kQuantRebasedTwoGroups groups),
// two up to 16384 (mxfp8_quant_gpu.cpp).
inline constexpr int kQuantRebasedThreads = 1024;
inline constexpr int kQuantRebasedTwoGroups = 512;
inline constexpr const char* kQuantBf16Rebased[2][2] = {
    {"mxfp8_quant_rebased<1024, 1, false>", "mxfp8_quant_rebased<1024, 1, true>"},
    {"mxfp8_quant_rebased<1024, 2, false>", "mxfp8_quant_rebased<1024, 2, true>"}};  // [groups - 1][interleave]
// mxfp8_widen<threads>: MXFP8 -> the wide layout of the bf16 path's register-fed and _wgmma kernels.
inline constexpr const char* kWiden = "mxfp8_widen<256>";
// mxfp8_f16_rows<threads>: MXFP8 values -> the f16 rows of the _gemv kernels (common/mx_f16_gemv.h).
inline constexpr const char* kF16Rows = "mxfp8_f16_rows<256>";
// mxfp8_rebase<threads, interleave>: MXFP8 -> rebased rows (common/mx_rebase.h) of the FP8 _wgmma kernels; a warp per row.
inline constexpr const char* kRebase = "mxfp8_rebase<256, false>";
// The same with each 32-byte block's words interleaved (the register-fed FP8 _wgmma kernels').
inline constexpr const char* kRebaseInterleaved = "mxfp8_rebase<256, true>";
// reference_moe.hip: 64x64 output tiles (so the reference sorts with block_m 64), k tiles of 32.
inline constexpr int kGemmTileM = 64;
inline constexpr int kGemmTileN = 64;
inline constexpr int kGemmThreads = 256;
inline constexpr const char* kGroupedGemm = "mx_grouped_gemm<64, 64, 32, 256>";
inline constexpr const char* kSiluMul = "silu_mul<256>";
inline constexpr const char* kWeightedTopkSum = "weighted_topk_sum<256>";
}  // namespace moetune::data::kernel_names

namespace moetune::data {

class DataKernels {
public:
    // What gets compiled for `arch`: one request per kernel template. Needs no GPU (tests compile
    // these on the CPU-only CI host).
    static std::vector<rtc::CompileRequest> requests(const std::string& arch);

    // Compiles the requests for the current device in parallel (through `cache` when not null)
    // and loads them. Throws GpuError without a usable GPU, rtc::CompileError on a bad template.
    explicit DataKernels(const rtc::KernelCache* cache);

    // The kernel of a name expression from kernel_names; throws std::out_of_range for any other.
    const gpu::Kernel& kernel(const std::string& name_expression) const;

private:
    std::vector<gpu::Module> modules_;
    std::map<std::string, gpu::Kernel> kernels_;
};

}  // namespace moetune::data
