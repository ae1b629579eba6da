#pragma once
// A GPU event: record on a stream before and after the work, then elapsed_ms(start, stop); or, made
// without timing, an ordering point another stream waits for (Stream::wait), which a graph capture
// turns into an edge between its branches.
namespace moetune::gpu {

class Stream;

class Event {
public:
    enum class Kind { timing, ordering };
    explicit Event(Kind kind = Kind::timing);
    ~Event();
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;

    void record(const Stream& stream);
    void synchronize() const;
    // Milliseconds between two recorded timing events; waits for `stop` to complete.
    static float elapsed_ms(const Event& start, const Event& stop);

    // The vendor handle (hipEvent_t / cudaEvent_t), opaque outside tuner/gpu.
    void* native() const { return handle_; }

private:
    void* handle_ = nullptr;
};

}  // namespace moetune::gpu
