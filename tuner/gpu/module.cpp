#include "gpu/module.h"

#include <string>
#include <utility>

#include "gpu/hip_check.h"
#include "gpu/stream.h"

namespace moetune::gpu {

Module::Module(std::string_view code_object) : image_(std::make_unique<const std::string>(code_object)) {
    hipModule_t m = nullptr;
    MOETUNE_HIP_CHECK(hipModuleLoadData(&m, image_->data()));
    handle_ = m;
}

Module::~Module() {
    if (handle_) (void)hipModuleUnload(static_cast<hipModule_t>(handle_));
}

Module::Module(Module&& other) noexcept
    : image_(std::move(other.image_)), handle_(std::exchange(other.handle_, nullptr)) {}

Module& Module::operator=(Module&& other) noexcept {
    if (this != &other) {
        if (handle_) (void)hipModuleUnload(static_cast<hipModule_t>(handle_));
        handle_ = std::exchange(other.handle_, nullptr);
        image_ = std::move(other.image_);
    }
    return *this;
}

Kernel Module::kernel(const std::string& name) const {
    hipFunction_t f = nullptr;
    try {
        MOETUNE_HIP_CHECK(hipModuleGetFunction(&f, static_cast<hipModule_t>(handle_), name.c_str()));
    } catch (const GpuError& e) {
        throw GpuError(e.call(), e.reason() + " (kernel " + name + ")");
    }
    return Kernel(f, name);
}

int Kernel::resident_workgroups_per_sm(unsigned block_threads, std::size_t shared_bytes) const {
    auto f = static_cast<hipFunction_t>(handle_);
    int blocks = 0;
    try {
        // Above 48 KB the calculator counts only what the kernel has opted in to.
        if (shared_bytes > 0) MOETUNE_HIP_CHECK(moetune_hip_set_max_dynamic_shared(f, static_cast<int>(shared_bytes)));
        MOETUNE_HIP_CHECK(moetune_hip_resident_blocks(&blocks, f, static_cast<int>(block_threads), shared_bytes));
    } catch (const GpuError& e) {
        throw GpuError(e.call(), e.reason() + " (kernel " + name_ + ")");
    }
    return blocks;
}

void Kernel::launch_with_params(const LaunchShape& s, const Stream& stream, void** params) const {
    auto f = static_cast<hipFunction_t>(handle_);
    // Opting in is per kernel and idempotent. Any launch with dynamic shared memory opts in: with
    // the kernel's static shared memory it may pass the default 48 KB even when its own bytes do not.
    if (s.shared_bytes > 0)
        MOETUNE_HIP_CHECK(moetune_hip_set_max_dynamic_shared(f, static_cast<int>(s.shared_bytes)));
    try {
        const auto shared = static_cast<unsigned>(s.shared_bytes);
        const auto native = static_cast<hipStream_t>(stream.native());
        if (s.overlap_previous)
            MOETUNE_HIP_CHECK(moetune_hip_launch_overlapping(f, s.grid.x, s.grid.y, s.grid.z, s.block.x, s.block.y,
                                                             s.block.z, shared, native, params));
        else
            MOETUNE_HIP_CHECK(hipModuleLaunchKernel(f, s.grid.x, s.grid.y, s.grid.z, s.block.x, s.block.y, s.block.z,
                                                    shared, native, params, nullptr));
    } catch (const GpuError& e) {
        throw GpuError(e.call(), e.reason() + " (kernel " + name_ + ")");
    }
}

}  // namespace moetune::gpu
