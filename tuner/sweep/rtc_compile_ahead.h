#pragma once
// CompileAhead on an rtc::CompilePool with the kernel cache the workers read: each candidate's
// request is instantiate::kernel_compile_request, exactly what the worker compiles. Only the
// outcome of each kernel is kept, not its code object (the workers load it from the cache).
#include <future>
#include <map>
#include <string>

#include "rtc/compile_pool.h"
#include "sweep/compile_ahead.h"

namespace moetune::sweep {

class RtcCompileAhead : public CompileAhead {
public:
    // `pool` must outlive this object and compile into the cache the workers use.
    RtcCompileAhead(rtc::CompilePool& pool, std::string arch, int test_break);

    void start(const std::vector<kernels::KernelConfig>& configs) override;
    std::map<std::string, std::string> wait(const std::vector<kernels::KernelConfig>& configs) override;

private:
    rtc::CompilePool& pool_;
    std::string arch_;
    int test_break_;
    std::map<std::string, std::future<rtc::CompiledCode>> running_;  // by kernel name
    std::map<std::string, std::string> finished_;                     // kernel name -> "" or failure text
};

}  // namespace moetune::sweep
