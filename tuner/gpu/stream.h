#pragma once
// A GPU stream. Streams moetune creates are blocking (ordered with the legacy default stream) so a
// synchronous copy after a launch sees its results without an explicit synchronize. borrow() wraps
// a stream someone else owns (a libmoetune caller's), which this object never destroys.
namespace moetune::gpu {

class Event;

class Stream {
public:
    Stream();
    // `native` is a hipStream_t / cudaStream_t (nullptr: the default stream); it must outlive the result.
    static Stream borrow(void* native);
    ~Stream();
    Stream(Stream&& other) noexcept;
    Stream& operator=(Stream&& other) noexcept;
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;

    void synchronize() const;
    // Work enqueued here after this call starts only once `event` (as last recorded) has completed.
    void wait(const Event& event) const;
    // The vendor handle (hipStream_t / cudaStream_t), opaque outside tuner/gpu.
    void* native() const { return handle_; }

private:
    Stream(void* handle, bool owned) : handle_(handle), owned_(owned) {}
    void release() noexcept;
    void* handle_ = nullptr;
    bool owned_ = true;
};

}  // namespace moetune::gpu
