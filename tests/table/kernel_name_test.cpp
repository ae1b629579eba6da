#include "support/catch.hpp"

#include "table/kernel_name.h"

using namespace moetune::table;

TEST_CASE("kernel names: the families of AITER's tables") {
    CHECK(kernel_family("flydsl_moe1_afp8_wfp4_bf16_t32x64x256_w4_gui_kw4_fp8") == KernelFamily::flydsl_stage1);
    CHECK(kernel_family("flydsl_moe2_afp8_wfp4_bf16_t32x256x256_reduce_bnt2_persist") == KernelFamily::flydsl_stage2);
    CHECK(kernel_family("flydsl_moe2_layout_afp8_wfp4_bf16_t64x256x128_atomic_nt_sbm64") ==
          KernelFamily::flydsl_stage2_layout);
    CHECK(kernel_family("flydsl_mxmoe_g1_a4w4_128x256x256") == KernelFamily::flydsl_mxmoe);
    CHECK(kernel_family("opus_moe2_afp8_wfp4_fp8_t32x256x256_sbm32_occ5_rbn2304") == KernelFamily::opus);
    CHECK(kernel_family("cktile_a8w4_bm32") == KernelFamily::cktile);
    CHECK(kernel_family("moe_ck2stages_gemm2_256x32x64x256_1x4_MulABScaleExpertWeight_v1_Nswizzle0_Quant2_"
                        "MulRoutedWeight1_F8_F8_B16") == KernelFamily::ck_2stages);
    CHECK(kernel_family("_ZN5aiter47fmoe_stage1_bf16_pertokenFp8_g1u1_32x64_4tg_pf3E") == KernelFamily::asm_kernel);
    CHECK(kernel_family("moetune_moe1_afp8_wfp4_bf16_t32x64x256") == KernelFamily::moetune);
}

TEST_CASE("kernel names: empty stage-2 slots and unknown names") {
    CHECK(kernel_family("") == KernelFamily::none);
    CHECK(kernel_family("Null") == KernelFamily::none);
    CHECK(kernel_family("my_custom_kernel") == KernelFamily::unknown);
    CHECK(kernel_family("flydsl_moe3_afp8") == KernelFamily::unknown);
    // The mangled length must match the symbol: a truncated name would not load.
    CHECK(kernel_family("_ZN5aiter47fmoe_stage1_bf16E") == KernelFamily::unknown);
    CHECK(kernel_family("_ZN5aiterE") == KernelFamily::unknown);
}
