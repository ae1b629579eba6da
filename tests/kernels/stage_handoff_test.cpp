// How stage 1's output reaches stage 2 (kernels/stage_handoff.h): the kinds kernels are classified
// into by name, what runs between each pair of kinds, and the names of the passes.
#include "kernels/stage_handoff.h"
#include "parsed_config.h"
#include "support/catch.hpp"

using namespace moetune::kernels;
using moetune::test::parse;

TEST_CASE("handoff: stage-1 outputs and stage-2 inputs by kernel") {
    CHECK(stage1_output(parse("moetune_moe1_afp8_wfp4_bf16_t16x128x128_w2_nt_gui")) == Stage1Output::bf16);
    CHECK(stage1_output(parse("moetune_moe1_afp8_wfp4_bf16_t16x128x128_w2_nt_gui_fp8")) == Stage1Output::mxfp8);
    CHECK(stage1_output(parse("moetune_moe1_afp8_wfp4_bf16_t16x64x512_w4_nt_wgmma_gui_fp8")) ==
          Stage1Output::register_fed_mxfp8);
    CHECK(stage2_input(parse("moetune_moe2_afp8_wfp4_bf16_t16x128x128_atomic_w2_nt")) == Stage2Input::mxfp8);
    CHECK(stage2_input(parse("moetune_moe2_afp8_wfp4_bf16_t16x128x256_atomic_nt_wgmma")) ==
          Stage2Input::interleaved_rebased_rows);
    CHECK(stage2_input(parse("moetune_moe2_afp8_wfp4_bf16_t16x128x256_atomic_nt_wgmma_mxr")) == Stage2Input::mx_rows);
    CHECK_THROWS_AS(stage1_output(parse("moetune_moe2_afp8_wfp4_bf16_t16x128x128_atomic_w2_nt")), std::invalid_argument);
    CHECK_THROWS_AS(stage2_input(parse("moetune_moe1_afp8_wfp4_bf16_t16x128x128_w2_nt_gui")), std::invalid_argument);
}

TEST_CASE("handoff: a bf16 stage 1 writes any input in its own sequence; a _fp8 one needs the rebase for rebased rows") {
    for (Stage2Input in : {Stage2Input::mxfp8, Stage2Input::wide, Stage2Input::rebased_rows,
                           Stage2Input::interleaved_rebased_rows, Stage2Input::mx_rows})
        CHECK(stage_handoff(Stage1Output::bf16, in) == StageHandoff::within_stages);
    for (Stage1Output out : {Stage1Output::mxfp8, Stage1Output::register_fed_mxfp8}) {
        CHECK(stage_handoff(out, Stage2Input::mxfp8) == StageHandoff::within_stages);
        CHECK(stage_handoff(out, Stage2Input::wide) == StageHandoff::within_stages);
        CHECK(stage_handoff(out, Stage2Input::rebased_rows) == StageHandoff::rebase);
        CHECK(stage_handoff(out, Stage2Input::interleaved_rebased_rows) == StageHandoff::rebase_interleaved);
    }
    CHECK(stage_handoff(Stage1Output::register_fed_mxfp8, Stage2Input::mx_rows) == StageHandoff::within_stages);
    CHECK(stage_handoff(Stage1Output::mxfp8, Stage2Input::mx_rows) == StageHandoff::impossible);

    const KernelConfig mxr = parse("moetune_moe2_afp8_wfp4_bf16_t16x128x256_atomic_nt_wgmma_mxr");
    CHECK(handoff_error(parse("moetune_moe1_afp8_wfp4_bf16_t16x128x128_w2_nt_gui_fp8"), mxr));
    CHECK_FALSE(handoff_error(parse("moetune_moe1_afp8_wfp4_bf16_t16x64x512_w4_nt_wgmma_gui_fp8"), mxr));
}

TEST_CASE("handoff: a _gemv stage 1 writes f16 rows for a _gemv stage 2 only, which reads nothing else") {
    const KernelConfig gemv1 = parse("moetune_moe1_afp8_wfp4_bf16_t16x64x256_w16_nt_gemv_gui");
    const KernelConfig gemv2 = parse("moetune_moe2_afp8_wfp4_bf16_t16x16x128_atomic_w2_nt_gemv");
    CHECK(stage1_output(gemv1) == Stage1Output::f16_rows);
    CHECK(stage2_input(gemv2) == Stage2Input::f16_rows);
    CHECK(stage_handoff(gemv1, gemv2) == StageHandoff::within_stages);
    CHECK_FALSE(handoff_error(gemv1, gemv2));
    for (Stage2Input in : {Stage2Input::mxfp8, Stage2Input::wide, Stage2Input::rebased_rows,
                           Stage2Input::interleaved_rebased_rows, Stage2Input::mx_rows})
        CHECK(stage_handoff(Stage1Output::f16_rows, in) == StageHandoff::impossible);
    for (Stage1Output out : {Stage1Output::bf16, Stage1Output::mxfp8, Stage1Output::register_fed_mxfp8})
        CHECK(stage_handoff(out, Stage2Input::f16_rows) == StageHandoff::impossible);
    CHECK(handoff_error(parse("moetune_moe1_afp8_wfp4_bf16_t16x128x128_w2_nt_gui"), gemv2));
    CHECK(handoff_error(gemv1, parse("moetune_moe2_afp8_wfp4_bf16_t16x128x128_atomic_w2_nt")));
}

TEST_CASE("handoff: only the rebases are passes, named for the sweep's tasks") {
    CHECK(handoff_pass_name(StageHandoff::rebase) == "mxfp8_rebase");
    CHECK(handoff_pass_name(StageHandoff::rebase_interleaved) == "mxfp8_rebase_interleaved");
    CHECK_FALSE(handoff_pass_name(StageHandoff::within_stages));
    CHECK_FALSE(handoff_pass_name(StageHandoff::impossible));
    CHECK(parse_handoff_pass("mxfp8_rebase") == StageHandoff::rebase);
    CHECK(parse_handoff_pass("mxfp8_rebase_interleaved") == StageHandoff::rebase_interleaved);
    CHECK_FALSE(parse_handoff_pass("moetune_moe1_afp8_wfp4_bf16_t16x128x128_w2_nt_gui"));
}
