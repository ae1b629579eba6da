#pragma once
// RAII device memory. DeviceAllocation owns raw bytes; DeviceBuffer<T> gives them an element type
// and typed host round trips. Copies are synchronous (they wait for earlier work on blocking streams,
// which is every Stream moetune creates); fill_bytes_async is the one that can go into a graph.
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace moetune::gpu {

class Stream;

// Enqueues setting `bytes` bytes of device memory at `device_ptr` to `value`, for memory moetune
// does not own (a libmoetune caller's buffers); capturable in a graph.
void fill_bytes_async(void* device_ptr, std::size_t bytes, unsigned char value, const Stream& stream);

class DeviceAllocation {
public:
    DeviceAllocation() = default;
    explicit DeviceAllocation(std::size_t bytes);
    ~DeviceAllocation();
    DeviceAllocation(DeviceAllocation&& other) noexcept
        : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
    DeviceAllocation& operator=(DeviceAllocation&& other) noexcept;
    DeviceAllocation(const DeviceAllocation&) = delete;
    DeviceAllocation& operator=(const DeviceAllocation&) = delete;

    void* data() const { return ptr_; }
    std::size_t bytes() const { return bytes_; }

    void copy_from_host(const void* src, std::size_t bytes, std::size_t offset = 0);
    void copy_to_host(void* dst, std::size_t bytes, std::size_t offset = 0) const;
    void fill_bytes(unsigned char value);
    void fill_bytes_async(unsigned char value, const Stream& stream);

private:
    void release() noexcept;
    void check_range(std::size_t bytes, std::size_t offset, const char* what) const;
    void* ptr_ = nullptr;
    std::size_t bytes_ = 0;
};

template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t count) : alloc_(count * sizeof(T)), count_(count) {}
    explicit DeviceBuffer(std::span<const T> host) : DeviceBuffer(host.size()) { upload(host); }

    T* data() const { return static_cast<T*>(alloc_.data()); }
    std::size_t size() const { return count_; }
    std::size_t bytes() const { return alloc_.bytes(); }
    bool empty() const { return count_ == 0; }

    // Replaces elements [offset, offset + host.size()).
    void upload(std::span<const T> host, std::size_t offset = 0) {
        alloc_.copy_from_host(host.data(), host.size_bytes(), offset * sizeof(T));
    }
    std::vector<T> download() const { return download(0, count_); }
    std::vector<T> download(std::size_t offset, std::size_t count) const {
        std::vector<T> host(count);
        alloc_.copy_to_host(host.data(), count * sizeof(T), offset * sizeof(T));
        return host;
    }
    void fill_bytes(unsigned char value) { alloc_.fill_bytes(value); }
    void fill_bytes_async(unsigned char value, const Stream& stream) { alloc_.fill_bytes_async(value, stream); }

private:
    DeviceAllocation alloc_;
    std::size_t count_ = 0;
};

}  // namespace moetune::gpu
