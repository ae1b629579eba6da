#include "kernels/kernel_config.h"

#include <algorithm>
#include <iterator>

#include "common/fp4_weight_blocks.h"
#include "common/mx_f16_code.h"
#include "common/shared_operand_layout.h"

namespace moetune::kernels {

static_assert(kGemvMaxTokens == kMxF16GemvColumns, "the _gemv kernels serve a sort block's rows as B columns");

namespace {

template <std::size_t N>
bool is_one_of(int v, const int (&values)[N]) {
    return std::find(std::begin(values), std::end(values), v) != std::end(values);
}

bool is_power_of_two(int v) { return v > 0 && (v & (v - 1)) == 0; }

// Upper bounds keep names short and catch typos; no useful tile comes near them.
constexpr int kMaxTileN = 512;
constexpr int kMaxWarps = 16;

// Whether the shared-operand WGMMA loop (kernel_templates/common/moe_shared_gemm.h) builds this tile: shared operands, 64-256
// columns, and either warpgroups of 64 rows (one per 64 rows, or two side by side on 256-wide tiles) or, swapped,
// one warp per 16 weight rows over at most 8 tile_m of them, without the fused MXFP8 output.
bool wgmma_tile_builds(const KernelConfig& c) {
    if (!c.shared_operands || c.tile_n % 64 != 0 || c.tile_n > 256) return false;
    if (swapped_wgmma(c)) return c.warps == c.tile_n / 16 && c.tile_n <= 8 * c.tile_m && !c.fused_mxfp8_out;
    const bool one_per_64_rows = c.warps == c.tile_m / 16;
    const bool side_by_side = c.warps == c.tile_m / 8 && c.tile_n == kWgmmaSideBySideN;
    return c.tile_m % kMxWarpgroupRows == 0 && (one_per_64_rows || side_by_side);
}

// _gemv: the 16-row weight tiles of a workgroup (stage 1: one 32-column MX block of gate and up rows).
int gemv_tiles(const KernelConfig& c) { return c.stage == Stage::gate_up ? kMxF16GemvStage1Tiles : c.tile_n / 16; }

// The _gemv kernels' own rules (moe_gemv_stage{1,2}.hip): nothing of the other loops' knobs.
std::optional<std::string> gemv_error(const KernelConfig& c) {
    const bool stage1 = c.stage == Stage::gate_up;
    if (c.mma != MmaPath::fp8 || c.tile_m != 16 || c.tile_k > 512 || !c.nontemporal_weights || c.wgmma ||
        c.warp_specialised || c.fp4_weights || c.weights_read_once || c.mx_rows || c.eight_rows || c.k_warps != 1 ||
        c.fused_mxfp8_out || c.sort_block != 0 || c.mode != Stage2Mode::atomic)
        return std::string("gemv needs tile_m 16, tile_k 128, 256 or 512, nt, the default (fp8) path and none of wgmma, "
                           "ws, f4w, ro, mxr, r8, kw, fp8 (its stage 1 writes f16 rows), sbm; stage 2 atomic");
    if (stage1 ? c.tile_n != 64 : (c.tile_n != 16 && c.tile_n != 32 && c.tile_n != 64))
        return std::string(stage1 ? "gemv stage 1 needs tile_n 64 (one 32-column MX block of gate and up rows)"
                                  : "gemv stage 2 needs tile_n 16, 32 or 64 (1, 2 or 4 tiles of 16 rows)");
    const int tiles = gemv_tiles(c);
    if (c.warps % tiles != 0)
        return "gemv: " + std::to_string(c.warps) + " warps do not split " + std::to_string(tiles) + " tiles evenly";
    return std::nullopt;
}

}  // namespace

int stage_number(Stage s) { return static_cast<int>(s); }

// The templates decide the same way: MxBf16Mma::kWideActivations in the register-fed loop
// (common/moe_gemm.h), MxMoeSharedGemm::kWideActivations in the shared-operand loop, whose
// warpgroup products copy the wide rows and whose warp products widen from MXFP8 once per workgroup.
bool reads_wide_activations(const KernelConfig& c) {
    return c.mma == MmaPath::bf16 && (!c.shared_operands || c.wgmma);
}

bool register_fed_wgmma(const KernelConfig& c) { return c.wgmma && !c.shared_operands; }

// The FP8 warpgroup kernels' products carry no per-block activation scale but the register-fed ones' with _mxr.
bool reads_rebased_rows(const KernelConfig& c) { return c.mma == MmaPath::fp8 && c.wgmma && !c.mx_rows; }

bool reads_interleaved_rows(const KernelConfig& c) { return reads_rebased_rows(c) && register_fed_wgmma(c); }

bool reads_mx_rows(const KernelConfig& c) { return c.mx_rows; }

bool reads_f16_rows(const KernelConfig& c) { return c.gemv; }

int warps_per_gemv_tile(const KernelConfig& c) {
    const int tiles = gemv_tiles(c);
    return tiles > 0 ? c.warps / tiles : 0;
}

WeightCopy weight_copy(const KernelConfig& c) {
    if (c.gemv) return WeightCopy::f16_tiles;
    if (c.mma != MmaPath::fp8 || !c.wgmma) return WeightCopy::coded_fp4;
    if (c.fp4_weights) return WeightCopy::fp4_blocks;
    return register_fed_wgmma(c) ? WeightCopy::e4m3_coded_fp4 : WeightCopy::rebased_e4m3;
}

WeightCopyBytes expert_bytes(WeightCopy copy, long long rows, int K) {
    switch (copy) {
        case WeightCopy::coded_fp4:
        case WeightCopy::e4m3_coded_fp4:
        case WeightCopy::f16_tiles: return {rows * (K / 2), rows * (K / kMxBlock)};
        case WeightCopy::rebased_e4m3: return {rows * K, rows};
        case WeightCopy::fp4_blocks: return {rows * mx_fp4_blocks_row_bytes(K), rows};
    }
    return {};
}

bool swapped_wgmma(const KernelConfig& c) { return mx_swapped_wgmma(c.wgmma, c.tile_m); }

bool n_tiles_fastest(const KernelConfig& c) { return c.gemv || mx_n_tiles_fastest(c.wgmma, c.shared_operands); }

bool persistent_tiles(const KernelConfig& c) {
    return mx_persistent_tiles(c.wgmma, c.shared_operands, c.mma == MmaPath::fp8);
}

int warp_n_granule(const KernelConfig& c) {
    if (c.stage == Stage::down) return 8;
    return c.fused_mxfp8_out ? 64 : 32;
}

int sort_block_m(const KernelConfig& c) { return c.sort_block != 0 ? c.sort_block : c.tile_m; }

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

std::string_view mma_path_token(MmaPath p) {
    switch (p) {
        case MmaPath::fp8: return "fp8";
        case MmaPath::bf16: return "bf16";
    }
    return "?";
}

std::optional<MmaPath> mma_path_from_token(std::string_view token) {
    for (MmaPath p : {MmaPath::fp8, MmaPath::bf16})
        if (mma_path_token(p) == token) return p;
    return std::nullopt;
}

std::optional<std::string> config_error(const KernelConfig& c) {
    using std::to_string;
    if (c.stage != Stage::gate_up && c.stage != Stage::down) return "stage must be 1 or 2";
    if (c.act != DType::fp8_e4m3)
        return "activation dtype " + std::string(dtype_token(c.act)) + " is not implemented (only fp8)";
    if (c.weight != DType::fp4_e2m1)
        return "weight dtype " + std::string(dtype_token(c.weight)) + " is not implemented (only fp4)";
    if (c.out != DType::bf16)
        return "output dtype " + std::string(dtype_token(c.out)) + " is not implemented (only bf16)";

    if (!is_one_of(c.tile_m, kSortBlockSizes))
        return "tile_m " + to_string(c.tile_m) + " is not one of 16, 32, 64, 128, 256";
    const int granule = warp_n_granule(c);
    if (c.tile_n <= 0 || c.tile_n % granule != 0 || c.tile_n > kMaxTileN)
        return "tile_n " + to_string(c.tile_n) + " must be a multiple of " + to_string(granule) + " up to " +
               to_string(kMaxTileN) +
               (c.stage == Stage::down ? std::string()
                : c.fused_mxfp8_out    ? std::string(" (whole 32-column MX blocks of gate/up pairs for _fp8)")
                                       : std::string(" (whole gate/up groups of 16+16 rows)"));
    if (!is_one_of(c.tile_k, kTileKs))
        return "tile_k " + to_string(c.tile_k) +
               " is not one of 128, 256, 512, 1024 (1, 2, 4 or 8 K chunks of 128 per prefetch)";
    if (c.tile_k > 512 && !register_fed_wgmma(c))  // the fp8 path: checked with the rest of those below
        return "tile_k 1024 (8 K chunks in flight) is for register-fed FP8 products (wgmma without smem) only";
    if (c.warp_specialised) {
        // The warp-specialised loop's own rules; its warps need not be a power of two (12 at 256 rows).
        if (c.mma != MmaPath::fp8 || !c.shared_operands || !c.wgmma || c.tile_m < kMxWarpgroupRows ||
            (c.tile_n != 64 && c.tile_n != 128 && c.tile_n != 192 && c.tile_n != kMxWsWideN) ||
            (c.tile_n == kMxWsWideN && c.tile_m > 128) || c.tile_k != kKChunk || c.k_warps != 1 ||
            c.min_workgroups != 0 || c.warps != mx_ws_warps(c.tile_m, c.tile_n))
            return "ws (warp-specialised) needs FP8 smem_wgmma, tile_m 64, 128 or 256, tile_n 64, 128, 192 or (tile_m 64 "
                   "or 128) 256, tile_k 128, no K-groups, no occupancy bound, and 4 warps a consumer warpgroup (128 "
                   "rows, 64 at 256 wide, two side by side at 64 x 256) plus 4 producers (8 warps at tile_m 64 and 128, "
                   "12 at 256 and at 256 wide)";
    } else if (!is_power_of_two(c.warps) || c.warps > kMaxWarps) {
        return "warps " + to_string(c.warps) + " must be a power of two up to " + to_string(kMaxWarps);
    }
    if (c.gemv) return gemv_error(c);
    if (c.fp4_weights && (!c.warp_specialised || mx_ws_stages(c.tile_m, c.tile_n, true) < 2))
        return "f4w (FP4 weights the consumers rebase) needs ws and room for two chunk buffers beside the rebased ring";
    if (c.weights_read_once && !c.warp_specialised) return "ro (weights read once, evict-first) needs ws";
    if (c.mx_rows && !register_fed_wgmma(c)) return "mxr (MXFP8 rows) needs register-fed FP8 products (wgmma without smem)";
    if (c.eight_rows && (!register_fed_wgmma(c) || c.tile_m != 16))
        return "r8 (products over 8 rows) needs register-fed FP8 products (wgmma without smem) of 16-row tiles";
    if (c.min_workgroups != 0 &&
        (c.min_workgroups < 2 || c.min_workgroups > kMaxMinWorkgroups || c.warps * c.min_workgroups > kMaxWarpsPerSm))
        return "occ" + to_string(c.min_workgroups) + " must ask for 2 to " + to_string(kMaxMinWorkgroups) +
               " workgroups per SM, of at most " + to_string(kMaxWarpsPerSm) + " warps together";
    if (!is_one_of(c.k_warps, kKWarps)) return "kw" + to_string(c.k_warps) + " is not one of 1, 2, 4";
    if (c.warps % c.k_warps != 0)
        return "kw" + to_string(c.k_warps) + " does not divide the " + to_string(c.warps) + " warps into K-groups";
    if (c.shared_operands && (c.tile_k != kKChunk || c.k_warps != 1))
        return "smem (shared operands) needs tile_k 128 and no K-groups";
    if (c.shared_operands && c.mma == MmaPath::fp8 && !c.warp_specialised &&
        !(c.wgmma && !swapped_wgmma(c) && c.warps == c.tile_m / 16 && c.tile_n <= 128 &&
          c.tile_n * 4 % (c.warps * 32) == 0))
        return "smem on the FP8 path needs wgmma with one warpgroup per 64 rows (tile_m / 16 warps), tile_n 64 or 128, "
               "and a whole weight vector per thread (tile_n >= tile_m / 2)";
    if (register_fed_wgmma(c)) {
        if (c.mma != MmaPath::fp8 || (c.tile_m != 16 && c.tile_m != 32) || c.tile_n % 64 != 0 ||
            c.warps != c.tile_n / 16 || c.k_warps != 1 || c.tile_k < 2 * kKChunk)
            return "wgmma without smem (register-fed FP8 products) needs the fp8 path, tile_m 16 or 32, tile_n a "
                   "multiple of 64 and tile_n / 16 warps, no K-groups, tile_k 256, 512 or 1024";
    } else if (c.wgmma && !c.warp_specialised && !wgmma_tile_builds(c))
        return "wgmma needs smem, tile_n 64, 128 or 256 and warpgroups of 64 rows: tile_m 64, 128 or 256 with tile_m / "
               "16 warps, or tile_m / 8 for two warpgroups side by side on 256-wide tiles; or swapped (tile_m 16 or "
               "32, the weights' rows in the warpgroups): tile_n / 16 warps, tile_n at most 8 tile_m, no fused fp8 "
               "output";

    if (c.stage == Stage::gate_up) {
        if (c.sort_block != 0) return "sbm applies to stage 2 only (stage 1 tiles are the sort blocks)";
        if (c.mode != Stage2Mode::atomic) return "atomic/reduce applies to stage 2 only";
    } else {
        if (c.fused_mxfp8_out) return "fused fp8 output applies to stage 1 only";
        if (c.sort_block != 0 && c.sort_block != c.tile_m && c.sort_block != 2 * c.tile_m)
            return "sbm" + to_string(c.sort_block) + " must be tile_m or 2*tile_m (" + to_string(c.tile_m) + " or " +
                   to_string(2 * c.tile_m) + ")";
        if (c.sort_block != 0 && !is_one_of(c.sort_block, kSortBlockSizes))
            return "sbm" + to_string(c.sort_block) + " is not a moe_sorting block size (16, 32, 64, 128, 256)";
    }
    return std::nullopt;
}

}  // namespace moetune::kernels
