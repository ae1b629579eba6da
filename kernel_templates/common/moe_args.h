#pragma once
// The kernel arguments of the MoE stage kernels, shared by the kernels and the host code that
// launches them (tuner/measure, the library), so both sides see one layout. Pointers and ints only:
// the struct is passed by value as the kernel's single parameter.

// The most routing entries (tokens * topk) a stage-1 kernel finds its rows in itself
// (MoeStage1Args::topk_ids, common/routed_rows.h): each thread passes over them twice.
constexpr int kMxRoutedEntriesMax = 64;

struct MoeStage1Args {
    const unsigned char* act;        // [M, model_dim] e4m3fn
    const unsigned char* act_scale;  // [M, model_dim/32] e8m0
    const unsigned char* w1;         // [E] x mma_k128 tiles of [2*inter (GU16-interleaved), model_dim]
    const unsigned char* w1_scale;   // [E, 2*inter (GU16-interleaved), model_dim/32] e8m0
    const int* sorted_token_ids;
    const int* sorted_expert_ids;
    const int* num_valid_ids;
    void* out;                       // bf16 or e4m3fn [M*topk, inter]
    unsigned char* out_scale;        // FUSE_FP8: [M*topk, inter/32] e8m0
    int tokens;
    int topk;
    int model_dim;
    int inter_dim;
    // The bf16 path's register-fed and _wgmma kernels (kernels::reads_wide_activations) read the
    // activations here instead of act / act_scale: [M, model_dim] bf16, wide layout (common/mx_bf16_widen.h).
    const unsigned short* act_wide;
    // FUSE_FP8 kernels: when set, the MXFP8 output goes here widened ([M*topk, inter] bf16, wide
    // layout: what such a stage 2 reads) instead of to out / out_scale.
    unsigned short* out_wide;
    // FUSE_FP8 register-fed kernels: nonzero = each 32-byte block of out in the interleaved word order
    // (mx_interleaved_source_word) that a register-fed stage 2 reading MXFP8 rows (_mxr) reads.
    int out_interleaved;
    // The register-fed FP8 kernels: when set ([M, topk] expert ids, M * topk <= kMxRoutedEntriesMax),
    // the kernel finds its tile's rows and expert here (common/routed_rows.h) instead of in the sort,
    // which it then does not read. `experts`: the local experts E (ids outside [0, E) are dropped).
    const int* topk_ids;
    int experts;
    // The register-fed FP8 kernels: when set, each workgroup asks L2 for its share of stage 2's
    // weights of its expert (values at next_w + e * next_w_bytes, next_w_bytes of them, and the same
    // of next_w_scale), split among the expert's N tiles, while it streams its own: stage 2 then reads
    // them from L2 (the library at one token, where they fit; docs/kernel-design.md, "Stage 2's
    // weights asked for during stage 1"). Byte counts are multiples of 16.
    const unsigned char* next_w;
    const unsigned char* next_w_scale;
    long long next_w_bytes;
    long long next_w_scale_bytes;
};

struct MoeStage2Args {
    const unsigned char* act;        // [M*topk, inter] e4m3fn (stage-1 output)
    const unsigned char* act_scale;  // [M*topk, inter/32] e8m0
    const unsigned char* w2;         // [E] x mma_k128 tiles of [model_dim, inter]
    const unsigned char* w2_scale;   // [E, model_dim, inter/32] e8m0
    const int* sorted_token_ids;
    const float* sorted_weights;
    const int* sorted_expert_ids;
    const int* num_valid_ids;
    unsigned short* out;             // ATOMIC: bf16 [M, model_dim]; reduce: bf16 [M*topk, model_dim]
    int tokens;
    int topk;
    int model_dim;
    int inter_dim;
    const unsigned short* act_wide;  // as MoeStage1Args::act_wide: [M*topk, inter] bf16, wide layout
};

struct MoeReduceArgs {
    const unsigned short* partial;  // bf16 [M*topk, model_dim]
    unsigned short* out;            // bf16 [M, model_dim]
    int tokens;
    int topk;
    int model_dim;
};
