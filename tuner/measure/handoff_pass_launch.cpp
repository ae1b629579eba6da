#include "measure/handoff_pass_launch.h"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace moetune::measure {
namespace {

bool interleaves(kernels::StageHandoff pass) {
    if (!kernels::handoff_pass_name(pass)) throw std::invalid_argument("HandoffPassLaunch: this handoff runs no pass");
    return pass == kernels::StageHandoff::rebase_interleaved;
}

// "" when equal, else the first differing index of `what`.
std::string first_difference(const char* what, const std::vector<uint8_t>& got, const std::vector<uint8_t>& want) {
    for (std::size_t i = 0; i < want.size(); ++i)
        if (got[i] != want[i])
            return std::string(what) + " byte " + std::to_string(i) + " is " + std::to_string(got[i]) + ", " +
                   std::to_string(want[i]) + " expected";
    return {};
}

}  // namespace

HandoffPassLaunch::HandoffPassLaunch(kernels::StageHandoff pass, const data::DataKernels& data_kernels,
                                     BucketData& bucket)
    : interleaved_(interleaves(pass)),
      data_kernels_(data_kernels),
      input_(bucket.input(2)),
      expected_(bucket.rebased_input(2, interleaved_)),
      output_{.rows = input_.rows,
              .cols = input_.cols,
              .values = gpu::DeviceBuffer<uint8_t>(input_.values.size()),
              .bases = gpu::DeviceBuffer<uint8_t>(std::size_t(input_.rows))} {}

void HandoffPassLaunch::poison() {
    output_.values.fill_bytes(0xFF);
    output_.bases.fill_bytes(0xFF);
}

void HandoffPassLaunch::enqueue(const gpu::Stream& stream) {
    data::enqueue_rebase_mxfp8(data_kernels_, input_.values.data(), input_.scales.data(), input_.rows, input_.cols,
                               output_.values.data(), output_.bases.data(), stream, interleaved_);
}

std::string HandoffPassLaunch::mismatch() const {
    std::string why = first_difference("base", output_.bases.download(), expected_.bases.download());
    return why.empty() ? first_difference("value", output_.values.download(), expected_.values.download()) : why;
}

}  // namespace moetune::measure
