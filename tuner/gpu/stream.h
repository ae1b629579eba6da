#pragma once
// An owned GPU stream. Streams are created blocking (ordered with the legacy default stream) so a
// synchronous copy after a launch sees its results without an explicit synchronize.
namespace moetune::gpu {

class Stream {
public:
    Stream();
    ~Stream();
    Stream(Stream&& other) noexcept;
    Stream& operator=(Stream&& other) noexcept;
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;

    void synchronize() const;
    // The vendor handle (hipStream_t / cudaStream_t), opaque outside tuner/gpu.
    void* native() const { return handle_; }

private:
    void* handle_ = nullptr;
};

}  // namespace moetune::gpu
