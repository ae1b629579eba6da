#pragma once
// A timing event: record on a stream before and after the work, then elapsed_ms(start, stop).
namespace moetune::gpu {

class Stream;

class Event {
public:
    Event();
    ~Event();
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;

    void record(const Stream& stream);
    void synchronize() const;
    // Milliseconds between two recorded events; waits for `stop` to complete.
    static float elapsed_ms(const Event& start, const Event& stop);

private:
    void* handle_ = nullptr;
};

}  // namespace moetune::gpu
