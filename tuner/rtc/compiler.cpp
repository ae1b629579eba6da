#include "rtc/compiler.h"

#include <chrono>
#include <mutex>

#include <spdlog/spdlog.h>

#include "gpu/hip_api.h"
#include "rtc/include_scan.h"
#include "rtc/kernel_sources.h"
#include "rtc/sha256.h"

namespace moetune::rtc {
namespace {

std::vector<std::string> full_options(const CompileRequest& r) {
    std::vector<std::string> options = moetune_rtc_target_options(r.arch);
    if (r.exact_float) options.push_back(moetune_rtc_no_fma_option());
    options.insert(options.end(), r.options.begin(), r.options.end());
    return options;
}

// Owns an hiprtcProgram; every call on it goes through check().
class Program {
public:
    Program(const CompileRequest& r, const std::vector<Header>& headers) : name_(r.source_name) {
        std::vector<const char*> texts, names;
        for (const Header& h : headers) {
            texts.push_back(h.text.c_str());
            names.push_back(h.include_name.c_str());
        }
        check(hiprtcCreateProgram(&program_, r.source.c_str(), r.source_name.c_str(), static_cast<int>(headers.size()),
                                  texts.data(), names.data()),
              "hiprtcCreateProgram");
    }
    ~Program() { (void)hiprtcDestroyProgram(&program_); }
    Program(const Program&) = delete;
    Program& operator=(const Program&) = delete;

    void check(hiprtcResult status, const char* call) const {
        if (status != HIPRTC_SUCCESS)
            throw CompileError(name_ + ": " + call + " failed: " + hiprtcGetErrorString(status), log());
    }
    hiprtcProgram get() const { return program_; }

    std::string log() const {
        std::size_t size = 0;
        if (hiprtcGetProgramLogSize(program_, &size) != HIPRTC_SUCCESS || size <= 1) return {};
        std::string text(size, '\0');
        if (hiprtcGetProgramLog(program_, text.data()) != HIPRTC_SUCCESS) return {};
        text.resize(size - 1);  // drop the terminating NUL
        return text;
    }

private:
    std::string name_;
    hiprtcProgram program_ = nullptr;
};

// hipRTC before ROCm 6 (Debian 12 ships 5.2) corrupts its heap or hangs when two threads compile
// at once (seen with moetune compile --arch gfx90a -j 2); NVRTC and newer hipRTC are thread-safe.
// There, programs are compiled one at a time and the pool's other threads wait.
std::unique_lock<std::mutex> serialize_if_unsafe() {
#if defined(MOETUNE_GPU_HIP) && defined(HIP_VERSION_MAJOR) && HIP_VERSION_MAJOR < 6
    static std::mutex compiler_mutex;
    return std::unique_lock<std::mutex>(compiler_mutex);
#else
    return {};
#endif
}

CompiledCode run_compiler(const CompileRequest& r, const std::vector<Header>& headers) {
    const auto lock = serialize_if_unsafe();
    const auto start = std::chrono::steady_clock::now();
    Program program(r, headers);
    for (const std::string& expr : r.name_expressions)
        program.check(hiprtcAddNameExpression(program.get(), expr.c_str()), "hiprtcAddNameExpression");

    const std::vector<std::string> options = full_options(r);
    std::vector<const char*> option_ptrs;
    for (const std::string& o : options) option_ptrs.push_back(o.c_str());
    const hiprtcResult status =
        hiprtcCompileProgram(program.get(), static_cast<int>(option_ptrs.size()), option_ptrs.data());
    if (status != HIPRTC_SUCCESS)
        throw CompileError(
            r.source_name + " for " + r.arch + ": compilation failed (" + hiprtcGetErrorString(status) + ")",
            program.log());

    CompiledCode out;
    out.log = program.log();
    std::size_t size = 0;
    program.check(hiprtcGetCodeSize(program.get(), &size), "hiprtcGetCodeSize");
    out.code.resize(size);
    program.check(hiprtcGetCode(program.get(), out.code.data()), "hiprtcGetCode");
    for (const std::string& expr : r.name_expressions) {
        const char* lowered = nullptr;
        program.check(hiprtcGetLoweredName(program.get(), expr.c_str(), &lowered), "hiprtcGetLoweredName");
        out.lowered_names.emplace_back(lowered);
    }
    out.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return out;
}

void hash_field(Sha256& h, std::string_view field) {
    // Length-prefixed, so no two different field sequences hash the same byte stream.
    h.update(std::to_string(field.size())).update(":").update(field);
}

std::string key_of(const CompileRequest& r, const std::vector<Header>& headers) {
    Sha256 h;
    hash_field(h, "moetune-rtc-key 1");
    hash_field(h, compiler_version());
    hash_field(h, r.arch);
    hash_field(h, r.source_name);
    hash_field(h, r.source);
    for (const Header& header : headers) {
        hash_field(h, header.include_name);
        hash_field(h, header.text);
    }
    const std::vector<std::string> options = full_options(r);
    hash_field(h, std::to_string(options.size()));
    for (const std::string& o : options) hash_field(h, o);
    hash_field(h, std::to_string(r.name_expressions.size()));
    for (const std::string& e : r.name_expressions) hash_field(h, e);
    return h.hex_digest();
}

}  // namespace

CompileRequest template_request(std::string_view template_path, std::vector<std::string> name_expressions,
                                std::string arch, std::vector<std::string> options) {
    CompileRequest r;
    r.source_name = std::string(template_path);
    r.source = std::string(kernel_source(template_path));
    r.name_expressions = std::move(name_expressions);
    r.options = std::move(options);
    r.arch = std::move(arch);
    return r;
}

std::string compiler_version() {
    int major = 0, minor = 0;
    if (hiprtcVersion(&major, &minor) != HIPRTC_SUCCESS)
        return std::string(moetune_rtc_compiler_name()) + " (version unknown)";
    return std::string(moetune_rtc_compiler_name()) + " " + std::to_string(major) + "." + std::to_string(minor);
}

std::string cache_key(const CompileRequest& request) {
    return key_of(request, resolve_includes(request.source_name, request.source));
}

CompiledCode compile(const CompileRequest& request, const KernelCache* cache) {
    const std::vector<Header> headers = resolve_includes(request.source_name, request.source);
    std::string key;
    if (cache) {
        key = key_of(request, headers);
        if (auto hit = cache->load(key)) return std::move(*hit);
    }
    CompiledCode code = run_compiler(request, headers);
    if (cache) {
        try {
            cache->store(key, code);
        } catch (const std::exception& e) {
            spdlog::warn("kernel cache: {}", e.what());
        }
    }
    return code;
}

}  // namespace moetune::rtc
