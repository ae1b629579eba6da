#pragma once
// How stage 1's output reaches stage 2, one classification for the library's planning
// (runtime/bucket_planner.cpp refuses a pair it cannot hand over) and the sweep's pair selection
// (select/winner.h charges a pair what runs between its stages). The launch sequence itself is
// launch/stage_launch.h's:
//   - a bf16 stage 1's timed sequence holds the quantisation of its output to whatever stage 2 reads
//     (MXFP8, the wide layout, rebased rows, MXFP8 rows): nothing runs between the stages;
//   - a _fp8 stage 1 writes MXFP8, widened or interleaved (MXFP8 rows, register-fed kernels only)
//     in its epilogue; for a stage 2 on rebased rows its output is rebased by a pass of its own
//     (mxfp8_rebase.hip), which neither stage's time holds;
//   - a _gemv stage 1 writes f16 rows, which only a _gemv stage 2 reads, and a _gemv stage 2 reads
//     nothing else (no pass writes f16 rows from bf16 or MXFP8 yet).
#include <optional>
#include <string_view>

#include "kernels/kernel_config.h"

namespace moetune::kernels {

// What a stage-1 kernel writes.
enum class Stage1Output : int {
    bf16,                // then quantised in its timed sequence
    mxfp8,               // _fp8: MXFP8 values and scales from its epilogue
    register_fed_mxfp8,  // the same from a register-fed kernel, which can interleave them (MXFP8 rows)
    f16_rows,            // _gemv: f16 rows under e8m0 block scales (common/mx_f16_gemv.h)
};
// What a stage-2 kernel reads.
enum class Stage2Input : int {
    mxfp8,                     // MXFP8 values and scales
    wide,                      // the wide layout (reads_wide_activations)
    rebased_rows,              // reads_rebased_rows
    interleaved_rebased_rows,  // reads_interleaved_rows
    mx_rows,                   // reads_mx_rows
    f16_rows,                  // reads_f16_rows
};

Stage1Output stage1_output(const KernelConfig& stage1);
Stage2Input stage2_input(const KernelConfig& stage2);

enum class StageHandoff : int {
    within_stages,       // stage 1's timed sequence writes what stage 2 reads
    rebase,              // then mxfp8_rebase to rebased rows, a pass between the stages
    rebase_interleaved,  // the same, each block's words interleaved (reads_interleaved_rows)
    impossible,          // the library has no way from this output to this input
};

StageHandoff stage_handoff(Stage1Output out, Stage2Input in);
StageHandoff stage_handoff(const KernelConfig& stage1, const KernelConfig& stage2);
// Why the library cannot run the pair (StageHandoff::impossible), or nullopt when it can.
std::optional<std::string_view> handoff_error(const KernelConfig& stage1, const KernelConfig& stage2);

// The pass a handoff runs between the stages, as the sweep names its timing task ("mxfp8_rebase",
// "mxfp8_rebase_interleaved"); nullopt for within_stages and impossible.
std::optional<std::string_view> handoff_pass_name(StageHandoff h);
// The handoff whose pass is named so; nullopt for any other name.
std::optional<StageHandoff> parse_handoff_pass(std::string_view name);

}  // namespace moetune::kernels
