#pragma once
// One launch of a pass the library runs between the stages (kernels/stage_handoff.h: the rebasing
// of a _fp8 stage 1's MXFP8 output for a stage 2 on rebased rows), as the sweep times it to charge
// the pairs that need it: on the bucket's stage-2 input (what stage 1 would have written) into
// buffers of its own. One copy, warm in L2 across the graph's launches: in the library the pass
// reads what stage 1 has just written. Checked against the rebased input the stage-2 candidates
// read (BucketData::rebased_input), so a launch that writes nothing is not timed.
#include "data_gpu/data_kernels.h"
#include "data_gpu/mxfp8_rebase_gpu.h"
#include "gpu/stream.h"
#include "kernels/stage_handoff.h"
#include "measure/bucket_data.h"

namespace moetune::measure {

class HandoffPassLaunch {
public:
    // `pass` must be a handoff with a pass (kernels::handoff_pass_name); throws std::invalid_argument otherwise.
    HandoffPassLaunch(kernels::StageHandoff pass, const data::DataKernels& data_kernels, BucketData& bucket);

    // Fills the output with 0xFF bytes (not what a rebase of finite MXFP8 writes). Synchronous.
    void poison();
    // Enqueues one pass; capturable.
    void enqueue(const gpu::Stream& stream);
    // After a completed launch: "" when the output equals the rebased input, else what differs.
    std::string mismatch() const;

private:
    bool interleaved_;
    const data::DataKernels& data_kernels_;
    const data::DeviceMxfpMatrix& input_;
    const data::DeviceRebasedMatrix& expected_;
    data::DeviceRebasedMatrix output_;
};

}  // namespace moetune::measure
