#pragma once
// Compilation ahead of measurement. Public tuners spend most of their time compiling (reference
// performance-anchors.md, "Tuning speed"), so the sweep compiles bucket b+1's kernels on every
// CPU core while the GPUs measure bucket b. The worker builds the same compile request from its
// task, so by the time it gets a task its kernel is a disk-cache hit. A kernel that does not
// compile is recorded as a failed candidate without being sent to a GPU.
#include <map>
#include <string>
#include <vector>

#include "kernels/kernel_config.h"

namespace moetune::sweep {

class CompileAhead {
public:
    virtual ~CompileAhead() = default;
    // Starts compiling these kernels in the background; kernels started before are not repeated.
    virtual void start(const std::vector<kernels::KernelConfig>& configs) = 0;
    // Blocks until these kernels are compiled (starting any not started yet). Returns the failure
    // text (measure/failure.h, kind "compile") of each that failed, by kernel name.
    virtual std::map<std::string, std::string> wait(const std::vector<kernels::KernelConfig>& configs) = 0;
};

}  // namespace moetune::sweep
