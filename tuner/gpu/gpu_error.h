#pragma once
// The one exception type of the GPU layer: which call failed and the vendor's own words for why.
// Commands catch it at the top and report it; the measure workers turn it into a failed task.
#include <stdexcept>
#include <string>

namespace moetune::gpu {

class GpuError : public std::runtime_error {
public:
    GpuError(std::string call, std::string reason)
        : std::runtime_error(call + ": " + reason), call_(std::move(call)), reason_(std::move(reason)) {}

    const std::string& call() const { return call_; }
    const std::string& reason() const { return reason_; }

private:
    std::string call_;
    std::string reason_;
};

}  // namespace moetune::gpu
