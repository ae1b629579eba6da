#pragma once
// KernelConfig: every compile-time parameter of one fused-MoE stage kernel. One config prints as
// exactly one kernel name and parses back from it (kernel_name.h); the kernel templates receive it
// as -D options (compile_definitions.h). Grammar, tokens and defaults: docs/kernel-names.md.
//
// Member defaults are the values an absent name token stands for, so KernelConfig{} with a stage
// and a tile prints as the shortest name.
#include <optional>
#include <string>
#include <string_view>

namespace moetune::kernels {

// Stage 1 is the gate/up projection (W1, fused SiLU(gate)*up epilogue), stage 2 the down projection (W2).
enum class Stage : int { gate_up = 1, down = 2 };

// Numeric values are the codes the kernel templates see in MOETUNE_*_DTYPE (compile_definitions.h).
enum class DType : int {
    fp8_e4m3 = 1,  // name token "fp8"
    fp4_e2m1 = 2,  // name token "fp4" (packed two per byte)
    bf16 = 3,      // name token "bf16"
};

// How stage 2 combines the top-k rows of a token.
enum class Stage2Mode : int {
    atomic = 0,  // scale by the routing weight and atomically add into out[M, model_dim] (zeroed by the sort)
    reduce = 1,  // write [M, topk, model_dim]; a separate reduce kernel sums over top-k (deterministic)
};

struct KernelConfig {
    Stage stage = Stage::gate_up;
    DType act = DType::fp8_e4m3;  // activations (MX: e8m0 scale per 1x32)
    DType weight = DType::fp4_e2m1;  // weights (MX: e8m0 scale per 1x32)
    DType out = DType::bf16;      // output element type of the MoE

    // Workgroup tile. tile_m = rows of the sorted token stream; tile_n = stage 1: W1 rows (gate and
    // up together, so tile_n/2 output columns), stage 2: model_dim columns; tile_k = along K
    // (stage 1: model_dim, stage 2: inter_dim), a multiple of the 32-wide MX scale block.
    int tile_m = 32;
    int tile_n = 128;
    int tile_k = 256;

    int warps = 8;                     // warps (AMD: waves) per workgroup            token _w{n}
    int pipeline_stages = 2;           // shared-memory buffers of the K loop        token _st{n}
    bool nontemporal_weights = false;  // stream weight loads past the caches        token _nt
    bool persistent = false;           // grid = resident workgroups looping over tiles  token _persist

    // Stage 1 only.
    bool gate_up_interleaved = false;  // W1 rows interleaved gate/up per 16 (GUGU)  token _gui
    bool fused_mxfp8_out = false;      // epilogue writes MXFP8 values + e8m0 scales for stage 2  token _fp8

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

// Why the config is not a well-formed kernel of the families moetune builds (values out of their
// domains, a field of the other stage set, a dtype not implemented yet); nullopt when it is.
// Shape- and device-dependent checks are pruning's job (candidates.h), not this function's.
std::optional<std::string> config_error(const KernelConfig& c);

// Storage bits of one element (fp4: 4).
int dtype_bits(DType t);

// Name token of a dtype ("fp8", "fp4", "bf16") and back.
std::string_view dtype_token(DType t);
std::optional<DType> dtype_from_token(std::string_view token);

// Tile-M values the moe_sorting block (and so stage-1 tile_m) can take.
inline constexpr int kSortBlockSizes[] = {16, 32, 64, 128};
// Elements per e8m0 scale along K (MX block).
inline constexpr int kMxBlock = 32;

}  // namespace moetune::kernels
