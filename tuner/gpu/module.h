#pragma once
// A loaded code object (cubin / AMD code object from tuner/rtc) and launches of its kernels.
//
//   gpu::Module m(compiled.code);
//   gpu::Kernel k = m.kernel(compiled.lowered_names[0]);
//   k.launch({grid, block, shared_bytes}, stream, ptr, n);   // arguments by value, exact kernel types
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace moetune::gpu {

class Stream;

struct Dim3 {
    unsigned x = 1, y = 1, z = 1;
};

struct LaunchShape {
    Dim3 grid;
    Dim3 block;
    std::size_t shared_bytes = 0;  // dynamic shared memory
    // May start while the stream's previous kernel finishes (NVIDIA sm_90+: programmatic dependent
    // launch; elsewhere an ordinary launch). The kernel must call mx_wait_for_previous_grid()
    // (kernel_templates/common/grid_dependency.h) before it reads anything that kernel writes, and
    // may read only what was complete before that kernel started.
    bool overlap_previous = false;
};

// A kernel of a loaded Module; valid while the Module lives.
class Kernel {
public:
    // Each argument is passed by address to the runtime, so its C++ type must match the kernel
    // parameter's type exactly (int vs long long, T* vs const T* is fine).
    template <class... Args>
    void launch(const LaunchShape& shape, const Stream& stream, const Args&... args) const {
        void* params[sizeof...(Args) + 1] = {const_cast<void*>(static_cast<const void*>(&args))..., nullptr};
        launch_with_params(shape, stream, params);
    }
    const std::string& name() const { return name_; }
    // Workgroups of `block_threads` threads and `shared_bytes` of dynamic shared memory that one
    // SM / CU holds at once (the runtime's occupancy calculator); what a persistent grid is sized by.
    int resident_workgroups_per_sm(unsigned block_threads, std::size_t shared_bytes) const;

private:
    friend class Module;
    Kernel(void* handle, std::string name) : handle_(handle), name_(std::move(name)) {}
    void launch_with_params(const LaunchShape& shape, const Stream& stream, void** params) const;
    void* handle_;
    std::string name_;
};

class Module {
public:
    explicit Module(std::string_view code_object);
    ~Module();
    Module(Module&& other) noexcept;
    Module& operator=(Module&& other) noexcept;
    Module(const Module&) = delete;
    Module& operator=(const Module&) = delete;

    // `name` is the lowered (mangled) name tuner/rtc returns for a name expression.
    Kernel kernel(const std::string& name) const;

private:
    // With lazy module loading the runtime may read the image only at the first launch, so the
    // module keeps its own copy (heap-held: a move must not relocate it) for as long as it lives.
    std::unique_ptr<const std::string> image_;
    void* handle_ = nullptr;
};

}  // namespace moetune::gpu
