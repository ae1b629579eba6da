#pragma once
// KernelConfig: every compile-time parameter of one fused-MoE stage kernel
// (kernel_templates/moe_stage1.hip, moe_stage2.hip). One config prints as exactly one kernel name
// and parses back from it (kernel_name.h); the kernel templates receive it as -D options
// (compile_definitions.h). Grammar, tokens and defaults: docs/kernel-names.md.
//
// Member defaults are the values an absent name token stands for, so KernelConfig{} with a stage
// and a tile prints as the shortest name.
#include <optional>
#include <string>
#include <string_view>

namespace moetune::kernels {

// Stage 1 is the gate/up projection (W1, fused SiLU(gate)*up epilogue), stage 2 the down projection (W2).
enum class Stage : int { gate_up = 1, down = 2 };

// The element types a name can spell. The kernels implement fp8 activations x fp4 weights with
// bf16 output (a8w4); the others parse so that config_error can say so.
enum class DType : int {
    fp8_e4m3 = 1,  // name token "fp8"
    fp4_e2m1 = 2,  // name token "fp4" (packed two per byte)
    bf16 = 3,      // name token "bf16"
};

// How stage 2 combines the top-k rows of a token.
enum class Stage2Mode : int {
    atomic = 0,  // scale by the routing weight and atomically add into out[M, model_dim] (zeroed first)
    reduce = 1,  // write [M*topk, model_dim] partials; moe_reduce.hip sums over top-k (deterministic)
};

// How each 32-wide MX block reaches the tensor cores (kernel_templates/common/mx_block_mma.h).
enum class MmaPath : int {
    fp8 = 0,   // FP4 widened to e4m3, FP8 16x8x32 products rescaled in FP32 by the block's two scales
    bf16 = 1,  // both operands widened to bf16 with the scales folded in, two bf16 16x8x16 products
};

struct KernelConfig {
    Stage stage = Stage::gate_up;
    DType act = DType::fp8_e4m3;     // activations (MX: e8m0 scale per 1x32)
    DType weight = DType::fp4_e2m1;  // weights (MX: e8m0 scale per 1x32)
    DType out = DType::bf16;         // output element type of the MoE

    // Workgroup tile. tile_m = rows of the sorted token stream; tile_n = stage 1: W1 rows (gate and
    // up interleaved, so tile_n/2 output columns), stage 2: model_dim columns; tile_k = K elements
    // (stage 1: model_dim, stage 2: inter_dim) per weight prefetch group: 128, 256, 512 or 1024
    // (register-fed FP8 products only), i.e. 1, 2, 4 or 8 chunks of 128 that each warp keeps in
    // flight in registers.
    int tile_m = 32;
    int tile_n = 128;
    int tile_k = 256;

    int warps = 8;                     // 32-lane warps per workgroup (AMD: half waves)  token _w{n}
    // Occupancy bound: at least this many workgroups resident per SM (__launch_bounds__), so the
    // compiler fits the registers to them and spills what does not fit; 0 = no bound (the compiler
    // picks the registers for one workgroup). More warps to hide the register-fed loop's latencies
    // at the price of a few spilled bytes (docs/kernel-design.md, "Occupancy bound").  token _occ{n}
    int min_workgroups = 0;
    bool nontemporal_weights = false;  // stream weight loads past the caches            token _nt
    MmaPath mma = MmaPath::fp8;        // tensor-core path                  token _m{path}: _mbf16
    // K-groups of warps (AITER's k_wave): the warps split into k_warps groups that each cover the
    // whole tile over every k_warps-th prefetch group of K, then sum through shared memory. More
    // loads in flight per tile where few tiles exist (few tokens).              token _kw{n}
    int k_warps = 1;
    // Shared operands (bf16 path, tile_k 128, one K-group): the workgroup widens each K chunk of its
    // rows and weight rows once into bf16 in shared memory (two buffers, 512 * (tile_m + tile_n)
    // bytes), and its warps multiply from there, instead of each warp widening its own operands.
    // Pays where many rows share each weight tile (thousands of tokens).          token _smem
    bool shared_operands = false;
    // With shared operands: Hopper warpgroup products (wgmma, sm_90a) straight from shared memory,
    // issued asynchronously so the next chunk's widening overlaps them. One warp per 16 rows
    // (warps = tile_m / 16, whole warpgroups of 64 rows over the tile's width); 128-row tiles take a
    // third buffer where it fits (kernels::dynamic_shared_bytes). Without shared operands (FP8 path):
    // register-fed warpgroup products (register_fed_wgmma).                              token _wgmma
    bool wgmma = false;
    // With FP8 shared operands and wgmma: the warp-specialised loop (kernel_templates/common/
    // moe_fp8_ws_gemm.h). A producer warpgroup copies every chunk into a ring of buffers and
    // consumer warpgroups of 128 rows multiply, handing the buffers back and forth through mbarriers
    // instead of meeting at a barrier every chunk; warps = mx_ws_warps(tile_m, tile_n) (4 a consumer
    // warpgroup and 4 producers: 8 at 64-128 rows, 12 at 256 rows and 256 wide).                token _ws
    bool warp_specialised = false;
    // _ws only: the weights as FP4 blocks (half the bytes) that the consumer warpgroups rebase to
    // e4m3 while their products of the chunk before run (kernel_templates/common/fp4_weight_blocks.h,
    // mx_e2m1_e4m3_lut.h, moe_fp8_ws_gemm.h).                                            token _f4w
    bool fp4_weights = false;
    // _ws only: where a row tile is its expert's only one, nothing else reads its weights, and the
    // producers copy them evict-first so that L2 keeps the rows and stage 2's atomic adds
    // (shared_operand_layout.h, mx_expert_row_tiles_one).                                  token _ro
    bool weights_read_once = false;
    // Register-fed FP8 products only: the activations as MXFP8 (e4m3 values with each 32-wide block's
    // e8m0 scale, the words interleaved as for rebased rows) instead of rebased rows; each block's
    // partial sums take the token's block scale as well as the weight row's. A register-fed stage 1
    // with the fused MXFP8 epilogue writes what such a stage 2 reads: no pass between the stages
    // (kernel_templates/common/moe_fp8_register_gemm.h).                                 token _mxr
    bool mx_rows = false;
    // Register-fed FP8 products of 16-row tiles only: the products cover the tile's first 8 rows
    // (m64n8k32), all that a sort block holds at most kEightRowsMaxTokens tokens (an expert takes a
    // token once); half the products' columns and half the partial sums to add a block. For those
    // buckets only (static_prune_reason); a kernel of its own rather than a branch on the tile, whose
    // second loop doubled the code (kernel_templates/common/moe_fp8_register_gemm.h, PRODUCT_N).
    //                                                                                       token _r8
    bool eight_rows = false;
    // The few-token GEMVs on f16 products (kernel_templates/moe_gemv_stage{1,2}.hip, common/mx_f16_gemv.h):
    // a workgroup one sort block of at most 8 rows and 16-row tiles of the weights' f16 copy
    // (WeightCopy::f16_tiles), each tile's K split among warps_per_gemv_tile warps with tile_k / 64
    // pairs of 32-wide K blocks a lane in flight (in registers, or with _smem in a cp.async ring); the
    // rows as f16 in the row order under MXFP8's block scales (reads_f16_rows), stage 1 writing its
    // output so. Stage 1: tile_n 64 (one 32-column MX block of gate and up rows: 4 tiles); stage 2:
    // tile_n 16, 32 or 64 (1, 2 or 4 tiles), atomic. tile_m 16, _nt; _occ{n} bounds their registers.
    //                                                                                     token _gemv
    bool gemv = false;

    // Stage 1 only. (W1 is always gate/up interleaved per 16 rows: the required token _gui.)
    bool fused_mxfp8_out = false;  // epilogue writes MXFP8 values + e8m0 scales for stage 2  token _fp8

    // Stage 2 only.
    Stage2Mode mode = Stage2Mode::atomic;  // token _atomic / _reduce (always spelled out)
    // The moe_sorting block this kernel walks, as spelled by token _sbm{S}: 0 = token absent, the
    // sort block is tile_m; 2*tile_m = each sort block is two tiles. S = tile_m is accepted because
    // AITER's v2 names always spell it (it is the same kernel as the absent form, and enumeration
    // never emits it).
    int sort_block = 0;

    bool operator==(const KernelConfig&) const = default;
};

// The moe_sorting block size (the CSV's block_m) this kernel consumes: stage 1 tiles are the sort
// blocks; a stage-2 kernel pairs with block_m S when named _sbm{S}, else with its tile_m.
int sort_block_m(const KernelConfig& c);

int stage_number(Stage s);  // 1 or 2

// Whether the kernel reads its activations (stage 1: the hidden states, stage 2: stage 1's output)
// pre-widened to bf16 in the wide layout (kernel_templates/common/mx_bf16_widen.h) instead of as
// MXFP8 values and scales: the bf16 path's register-fed kernels, which would otherwise widen the
// same rows in every warp, and its _wgmma kernels, which copy them into shared memory instead of
// widening them (docs/kernel-design.md, "Pre-widened activations").
bool reads_wide_activations(const KernelConfig& c);
// Whether a kernel is register-fed FP8 warpgroup products (_wgmma without _smem, FP8 path;
// kernel_templates/common/moe_fp8_register_gemm.h): the FP4 weights decoded in registers as the A
// operand, the tile's 16 or 32 rows as B (stage 1: bf16 output quantised by a separate pass, or with
// _fp8 an MXFP8 epilogue across the 4 warps of each MX block).
bool register_fed_wgmma(const KernelConfig& c);

// Whether a kernel reads its activations rebased (kernel_templates/common/mx_rebase.h: e4m3 values
// relative to one e8m0 base per row) as act and act_scale, instead of as MXFP8: the FP8 warpgroup
// kernels, whose products carry no per-block activation scale. The register-fed ones read each
// 32-byte block's words interleaved (0, 2, 4, 6, 1, 3, 5, 7: the k order of their fragments).
bool reads_rebased_rows(const KernelConfig& c);
bool reads_interleaved_rows(const KernelConfig& c);
// Whether a kernel reads its activations as MXFP8 with each 32-byte block's words interleaved (_mxr):
// the values as act, the block scales as act_scale.
bool reads_mx_rows(const KernelConfig& c);
// Whether a kernel reads its activations as f16 rows (_gemv: the values as f16 in the row order of
// common/mx_f16_gemv.h, as act; their MXFP8 block scales as act_scale), and a stage 1 writes them so.
bool reads_f16_rows(const KernelConfig& c);
// _gemv: the warps that split one 16-row tile's K (warps / tiles of the workgroup).
int warps_per_gemv_tile(const KernelConfig& c);

// The copy of the expert weights a kernel reads as w and w_scale. All are made from the same logical
// weights, once, like the kernel layout (the library's caller gives those its plans need).
enum class WeightCopy : int {
    coded_fp4,       // the kernel layout (formats::WeightLayout::mma_k128): FP4 in the pairs code
                     // (common/mx_e2m1_code.h) and the block scales
    rebased_e4m3,    // its rebased copy (common/mx_rebase.h): e4m3 rows and a base each; the
                     // shared-operand FP8 _wgmma kernels, which convert nothing
    e4m3_coded_fp4,  // the kernel layout with FP4 in the e4m3 code (mx_e2m1_e4m3_decode), the same
                     // block scales; the register-fed FP8 _wgmma kernels
    fp4_blocks,      // FP4 in 64-row blocks with each MX block's table row (common/fp4_weight_blocks.h)
                     // and the rebased copy's bases; the _ws kernels that rebase their weights (fp4_weights)
    f16_tiles,       // FP4 in the f16 code in 16-row tiles, lane-ordered, with their block scales beside
                     // (common/mx_f16_gemv.h); the _gemv kernels
};
WeightCopy weight_copy(const KernelConfig& c);

// One expert's bytes of each tensor of a weight copy -- its values, then its block scales or bases --
// for a weight matrix of `rows` rows of K: each copy holds the experts one after another, so a whole
// tensor is experts times these (measure::weight_tensor_bytes and its siblings).
struct WeightCopyBytes {
    long long values = 0;
    long long scales = 0;
};
WeightCopyBytes expert_bytes(WeightCopy copy, long long rows, int K);

// Whether a _wgmma kernel's tile is swapped (tile_m 16 or 32, below the warpgroup's 64 rows): the
// weights are the A operand, 64 weight rows per warpgroup and one warp per 16, the tile's rows the
// B operand (kernel_templates/common/moe_shared_gemm.h, kSwapped).
bool swapped_wgmma(const KernelConfig& c);

// Whether the kernel's grid walks the N tiles first (x) and the sorted-row tiles second (y), so the
// workgroups in flight share activation rows through L2: the _wgmma kernels, whose tiles of 64-128
// rows at thousands of tokens read more activation bytes than L2 holds (mx_row_tile in
// kernel_templates/common/moe_gemm.h), and the _gemv kernels (x: the column tiles of one sort block).
// The others walk the row tiles first, so the few row tiles of one expert share its weight slice.
bool n_tiles_fastest(const KernelConfig& c);

// Whether the kernel's workgroups walk tiles over a 1-D grid sized to what the GPU holds at once
// (launch_geometry's resident_workgroups), each copying the next tile's first chunks while it
// finishes one: the FP8 shared-operand _wgmma kernels (mx_persistent_tiles in
// kernel_templates/common/shared_operand_layout.h).
bool persistent_tiles(const KernelConfig& c);

// The narrowest warp block the templates accept along N, and so the tile_n granule: stage 1 32 W1
// rows (a 16-row gate block with its 16 up rows, so SiLU(gate)*up stays in one warp's registers),
// 64 with the fused MXFP8 epilogue (each warp quantises whole 32-column MX blocks); stage 2 8
// columns (one tensor-core N tile).
int warp_n_granule(const KernelConfig& c);
// Warp blocks are whole 16-row tensor-core tiles along M.
inline constexpr int kWarpMGranule = 16;

// Why the config is not a well-formed kernel of the templates (values out of their domains, a
// field of the other stage set, a dtype not implemented); nullopt when it is. Shape- and
// device-dependent checks are pruning's job (static_checks.h), not this function's.
std::optional<std::string> config_error(const KernelConfig& c);

// Name token of a dtype ("fp8", "fp4", "bf16") and back.
std::string_view dtype_token(DType t);
std::optional<DType> dtype_from_token(std::string_view token);

// Name token of an MMA path ("fp8", "bf16"; spelled _m{token}) and back.
std::string_view mma_path_token(MmaPath p);
std::optional<MmaPath> mma_path_from_token(std::string_view token);

// The most tokens a _gemv kernel serves: a sort block's rows are its product's B columns
// (kMxF16GemvColumns, common/mx_f16_code.h: kernel_config.cpp checks they agree), and an expert holds
// at most one row a token.
inline constexpr int kGemvMaxTokens = 8;
// The most tokens an _r8 kernel serves: then a 16-row sort block holds at most 8 rows, the ones its
// products cover.
inline constexpr int kEightRowsMaxTokens = 8;
// Tile-M values the moe_sorting block (and so stage-1 tile_m) can take.
inline constexpr int kSortBlockSizes[] = {16, 32, 64, 128, 256};
// k_warps values (1 = no K split inside the workgroup).
inline constexpr int kKWarps[] = {1, 2, 4};
// tile_k values: K chunks of 128 per prefetch group (the templates' PIPE = tile_k / 128); 1024 only
// on register-fed FP8 products (config_error).
inline constexpr int kTileKs[] = {128, 256, 512, 1024};
// The K chunk the templates walk (one 512-byte mma_k128 weight load per 8 rows): K of both GEMMs
// must be a multiple of it.
inline constexpr int kKChunk = 128;
// Elements per e8m0 scale along K (MX block).
inline constexpr int kMxBlock = 32;
// min_workgroups (_occ{n}): 2..kMaxMinWorkgroups workgroups per SM, and at most kMaxWarpsPerSm warps
// in all (sm_90: 2048 threads an SM).
inline constexpr int kMaxMinWorkgroups = 16;
inline constexpr int kMaxWarpsPerSm = 64;
// The one tile width of _wgmma tiles with two warpgroups side by side per 64 rows (tile_m / 8 warps):
// each multiplies 128 columns. Halves of 128 (m64n64 products, which read 4 KB of shared memory per
// 131 kFLOP) measured no faster than one warpgroup (docs/kernel-design.md, "Two warpgroups side by
// side").
inline constexpr int kWgmmaSideBySideN = 256;

}  // namespace moetune::kernels
