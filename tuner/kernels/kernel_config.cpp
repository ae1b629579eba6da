#include "kernels/kernel_config.h"

#include <algorithm>
#include <iterator>

namespace moetune::kernels {
namespace {

bool is_sort_block_size(int m) {
    return std::find(std::begin(kSortBlockSizes), std::end(kSortBlockSizes), m) != std::end(kSortBlockSizes);
}

bool is_power_of_two(int v) { return v > 0 && (v & (v - 1)) == 0; }

// Upper bounds keep names short and catch typos; no real kernel tile comes near them.
constexpr int kMaxTileN = 512;
constexpr int kMaxTileK = 1024;
constexpr int kMaxWarps = 16;
constexpr int kMaxPipelineStages = 8;

}  // namespace

int stage_number(Stage s) { return static_cast<int>(s); }

int sort_block_m(const KernelConfig& c) { return c.sort_block != 0 ? c.sort_block : c.tile_m; }

int dtype_bits(DType t) {
    switch (t) {
        case DType::fp8_e4m3: return 8;
        case DType::fp4_e2m1: return 4;
        case DType::bf16: return 16;
    }
    return 0;
}

std::string_view dtype_token(DType t) {
    switch (t) {
        case DType::fp8_e4m3: return "fp8";
        case DType::fp4_e2m1: return "fp4";
        case DType::bf16: return "bf16";
    }
    return "?";
}

std::optional<DType> dtype_from_token(std::string_view token) {
    for (DType t : {DType::fp8_e4m3, DType::fp4_e2m1, DType::bf16})
        if (dtype_token(t) == token) return t;
    return std::nullopt;
}

std::optional<std::string> config_error(const KernelConfig& c) {
    using std::to_string;
    if (c.stage != Stage::gate_up && c.stage != Stage::down) return "stage must be 1 or 2";
    // The grammar has room for bf16/fp4 activations; the kernels implement a8w4 with bf16 output only.
    if (c.act != DType::fp8_e4m3)
        return "activation dtype " + std::string(dtype_token(c.act)) + " is not implemented (only fp8)";
    if (c.weight != DType::fp4_e2m1)
        return "weight dtype " + std::string(dtype_token(c.weight)) + " is not implemented (only fp4)";
    if (c.out != DType::bf16)
        return "output dtype " + std::string(dtype_token(c.out)) + " is not implemented (only bf16)";

    if (!is_sort_block_size(c.tile_m)) return "tile_m " + to_string(c.tile_m) + " is not one of 16, 32, 64, 128";
    // Stage 1 N tiles hold whole gate/up pairs of 16-row blocks (the GUGU granularity), so 32 rows.
    const int n_granule = c.stage == Stage::gate_up ? 32 : 16;
    if (c.tile_n <= 0 || c.tile_n % n_granule != 0 || c.tile_n > kMaxTileN)
        return "tile_n " + to_string(c.tile_n) + " must be a multiple of " + to_string(n_granule) + " up to " +
               to_string(kMaxTileN);
    if (c.tile_k <= 0 || c.tile_k % kMxBlock != 0 || c.tile_k > kMaxTileK)
        return "tile_k " + to_string(c.tile_k) + " must be a multiple of 32 (the MX scale block) up to " +
               to_string(kMaxTileK);
    if (!is_power_of_two(c.warps) || c.warps > kMaxWarps)
        return "warps " + to_string(c.warps) + " must be a power of two up to " + to_string(kMaxWarps);
    if (c.pipeline_stages < 1 || c.pipeline_stages > kMaxPipelineStages)
        return "pipeline stages " + to_string(c.pipeline_stages) + " must be 1.." + to_string(kMaxPipelineStages);

    if (c.stage == Stage::gate_up) {
        if (c.sort_block != 0) return "sbm applies to stage 2 only (stage 1 tiles are the sort blocks)";
        if (c.mode != Stage2Mode::atomic) return "atomic/reduce applies to stage 2 only";
        // One e8m0 scale per 32 output columns: a tile must own whole scale blocks.
        if (c.fused_mxfp8_out && (c.tile_n / 2) % kMxBlock != 0)
            return "fused MXFP8 output needs tile_n/2 to be a multiple of 32, got tile_n " + to_string(c.tile_n);
    } else {
        if (c.gate_up_interleaved) return "gui applies to stage 1 only";
        if (c.fused_mxfp8_out) return "fused fp8 output applies to stage 1 only";
        if (c.sort_block != 0 && c.sort_block != c.tile_m && c.sort_block != 2 * c.tile_m)
            return "sbm" + to_string(c.sort_block) + " must be tile_m or 2*tile_m (" + to_string(c.tile_m) + " or " +
                   to_string(2 * c.tile_m) + ")";
        if (c.sort_block != 0 && !is_sort_block_size(c.sort_block))
            return "sbm" + to_string(c.sort_block) + " is not a moe_sorting block size (16, 32, 64, 128)";
    }
    return std::nullopt;
}

}  // namespace moetune::kernels
