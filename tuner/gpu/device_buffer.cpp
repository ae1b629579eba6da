#include "gpu/device_buffer.h"

#include "gpu/hip_check.h"
#include "gpu/stream.h"

namespace moetune::gpu {

void fill_bytes_async(void* device_ptr, std::size_t bytes, unsigned char value, const Stream& stream) {
    if (bytes == 0) return;
    MOETUNE_HIP_CHECK(hipMemsetAsync(device_ptr, value, bytes, static_cast<hipStream_t>(stream.native())));
}

DeviceAllocation::DeviceAllocation(std::size_t bytes) : bytes_(bytes) {
    // A zero-byte buffer is legal (an empty routing, an unused output) and owns nothing.
    if (bytes == 0) return;
    try {
        MOETUNE_HIP_CHECK(hipMalloc(&ptr_, bytes));
    } catch (const GpuError& e) {
        throw GpuError(e.call(), e.reason() + " while allocating " + std::to_string(bytes) + " bytes");
    }
}

DeviceAllocation::~DeviceAllocation() { release(); }

DeviceAllocation& DeviceAllocation::operator=(DeviceAllocation&& other) noexcept {
    if (this != &other) {
        release();
        ptr_ = std::exchange(other.ptr_, nullptr);
        bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
}

void DeviceAllocation::release() noexcept {
    // hipFree can only fail here for a sticky context error, which the next checked call reports.
    if (ptr_) (void)hipFree(ptr_);
    ptr_ = nullptr;
    bytes_ = 0;
}

void DeviceAllocation::check_range(std::size_t bytes, std::size_t offset, const char* what) const {
    if (offset > bytes_ || bytes > bytes_ - offset)
        throw std::out_of_range(std::string(what) + ": " + std::to_string(bytes) + " bytes at offset " +
                                std::to_string(offset) + " exceed a device buffer of " + std::to_string(bytes_) +
                                " bytes");
}

void DeviceAllocation::copy_from_host(const void* src, std::size_t bytes, std::size_t offset) {
    check_range(bytes, offset, "upload");
    if (bytes == 0) return;
    MOETUNE_HIP_CHECK(hipMemcpy(static_cast<char*>(ptr_) + offset, src, bytes, hipMemcpyHostToDevice));
}

void DeviceAllocation::copy_to_host(void* dst, std::size_t bytes, std::size_t offset) const {
    check_range(bytes, offset, "download");
    if (bytes == 0) return;
    MOETUNE_HIP_CHECK(hipMemcpy(dst, static_cast<const char*>(ptr_) + offset, bytes, hipMemcpyDeviceToHost));
}

void DeviceAllocation::fill_bytes(unsigned char value) {
    if (bytes_ == 0) return;
    MOETUNE_HIP_CHECK(hipMemset(ptr_, value, bytes_));
}

void DeviceAllocation::fill_bytes_async(unsigned char value, const Stream& stream) {
    gpu::fill_bytes_async(ptr_, bytes_, value, stream);
}

}  // namespace moetune::gpu
