#pragma once
// Host copies of the argument structs of the candidate kernels (kernel_templates/moe_stage1.hip,
// moe_stage2.hip) and of the reduce kernel (moe_reduce.hip). Each kernel takes its struct by value,
// so these must match the device definitions member for member; tests/measure compiles the
// templates with static_asserts on sizeof/offsetof generated from these (kernel_args_layout_test).
#include <cstdint>

namespace moetune::measure {

struct MoeStage1Args {
    const uint8_t* act;        // [M, model_dim] e4m3fn
    const uint8_t* act_scale;  // [M, model_dim/32] e8m0
    const uint8_t* w1;         // mma_k128 layout
    const uint8_t* w1_scale;   // [E, 2*inter (GU16-interleaved), model_dim/32]
    const int32_t* sorted_token_ids;
    const int32_t* sorted_expert_ids;
    const int32_t* num_valid_ids;
    void* out;           // bf16 or (fused) e4m3fn [M*topk, inter]
    uint8_t* out_scale;  // fused: [M*topk, inter/32] e8m0
    int32_t tokens;
    int32_t topk;
    int32_t model_dim;
    int32_t inter_dim;
};

struct MoeStage2Args {
    const uint8_t* act;        // [M*topk, inter] e4m3fn
    const uint8_t* act_scale;  // [M*topk, inter/32] e8m0
    const uint8_t* w2;         // mma_k128 layout
    const uint8_t* w2_scale;   // [E, model_dim, inter/32]
    const int32_t* sorted_token_ids;
    const float* sorted_weights;
    const int32_t* sorted_expert_ids;
    const int32_t* num_valid_ids;
    uint16_t* out;  // atomic: bf16 [M, model_dim]; reduce: bf16 [M*topk, model_dim]
    int32_t tokens;
    int32_t topk;
    int32_t model_dim;
    int32_t inter_dim;
};

struct MoeReduceArgs {
    const uint16_t* partial;  // bf16 [M*topk, model_dim]
    uint16_t* out;            // bf16 [M, model_dim]
    int32_t tokens;
    int32_t topk;
    int32_t model_dim;
};

}  // namespace moetune::measure
