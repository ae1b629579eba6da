#include "kernels/stage_handoff.h"

#include <stdexcept>

namespace moetune::kernels {

Stage1Output stage1_output(const KernelConfig& stage1) {
    if (stage1.stage != Stage::gate_up) throw std::invalid_argument("stage1_output: not a stage-1 kernel");
    if (stage1.gemv) return Stage1Output::f16_rows;
    if (!stage1.fused_mxfp8_out) return Stage1Output::bf16;
    return register_fed_wgmma(stage1) ? Stage1Output::register_fed_mxfp8 : Stage1Output::mxfp8;
}

Stage2Input stage2_input(const KernelConfig& stage2) {
    if (stage2.stage != Stage::down) throw std::invalid_argument("stage2_input: not a stage-2 kernel");
    if (reads_f16_rows(stage2)) return Stage2Input::f16_rows;
    if (reads_wide_activations(stage2)) return Stage2Input::wide;
    if (reads_mx_rows(stage2)) return Stage2Input::mx_rows;
    if (reads_interleaved_rows(stage2)) return Stage2Input::interleaved_rebased_rows;
    if (reads_rebased_rows(stage2)) return Stage2Input::rebased_rows;
    return Stage2Input::mxfp8;
}

StageHandoff stage_handoff(Stage1Output out, Stage2Input in) {
    if ((out == Stage1Output::f16_rows) != (in == Stage2Input::f16_rows)) return StageHandoff::impossible;
    if (out == Stage1Output::bf16 || out == Stage1Output::f16_rows) return StageHandoff::within_stages;
    switch (in) {
        case Stage2Input::f16_rows: break;  // (above)
        case Stage2Input::mxfp8:
        case Stage2Input::wide: return StageHandoff::within_stages;
        case Stage2Input::rebased_rows: return StageHandoff::rebase;
        case Stage2Input::interleaved_rebased_rows: return StageHandoff::rebase_interleaved;
        // Only the register-fed epilogue interleaves a block's words as it stores them.
        case Stage2Input::mx_rows:
            return out == Stage1Output::register_fed_mxfp8 ? StageHandoff::within_stages : StageHandoff::impossible;
    }
    throw std::logic_error("stage_handoff: unknown stage-2 input");
}

StageHandoff stage_handoff(const KernelConfig& stage1, const KernelConfig& stage2) {
    return stage_handoff(stage1_output(stage1), stage2_input(stage2));
}

std::optional<std::string_view> handoff_error(const KernelConfig& stage1, const KernelConfig& stage2) {
    if (stage_handoff(stage1, stage2) != StageHandoff::impossible) return std::nullopt;
    if (stage1.gemv || stage2.gemv) return "a _gemv stage pairs only with a _gemv stage (f16 rows between them)";
    return "stage 2 reads MXFP8 rows (_mxr), which only a register-fed _fp8 stage 1 or a bf16 one writes";
}

std::optional<std::string_view> handoff_pass_name(StageHandoff h) {
    switch (h) {
        case StageHandoff::rebase: return "mxfp8_rebase";
        case StageHandoff::rebase_interleaved: return "mxfp8_rebase_interleaved";
        case StageHandoff::within_stages:
        case StageHandoff::impossible: return std::nullopt;
    }
    return std::nullopt;
}

std::optional<StageHandoff> parse_handoff_pass(std::string_view name) {
    for (StageHandoff h : {StageHandoff::rebase, StageHandoff::rebase_interleaved})
        if (handoff_pass_name(h) == name) return h;
    return std::nullopt;
}

}  // namespace moetune::kernels
