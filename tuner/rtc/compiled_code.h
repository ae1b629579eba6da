#pragma once
// What a compilation yields: the code object and what is needed to launch from it.
#include <stdexcept>
#include <string>
#include <vector>

namespace moetune::rtc {

struct CompiledCode {
    std::string code;                        // cubin (NVIDIA) or AMD code object, for gpu::Module
    std::string log;                         // compiler messages (warnings), may be empty
    std::vector<std::string> lowered_names;  // one per CompileRequest::name_expressions, same order
    double compile_ms = 0.0;                 // time the compiler took when this code was built
    bool from_cache = false;                 // true when this call loaded it from the disk cache
};

// The compiler rejected the program; what() names the source and the compiler's verdict, log()
// holds its full output.
class CompileError : public std::runtime_error {
public:
    CompileError(const std::string& message, std::string log)
        : std::runtime_error(log.empty() ? message : message + "\n" + log), log_(std::move(log)) {}
    const std::string& log() const { return log_; }

private:
    std::string log_;
};

}  // namespace moetune::rtc
