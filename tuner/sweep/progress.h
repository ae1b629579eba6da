#pragma once
// The sweep's progress: candidates done / total, the (shape, bucket) being measured and an ETA
// from the mean time per candidate so far. On a terminal it is one stderr line redrawn with \r;
// otherwise (a log file, a Slurm job) a plain log line at most every kLogInterval and at the end
// of each bucket, so logs stay readable. Candidates finish on several worker threads at once, so
// every member is thread-safe.
#include <chrono>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>

namespace moetune::sweep {

// "1h05m", "3m07s", "42s".
std::string format_duration(double seconds);
// "[=======>      ] 120/900 candidates  5120x2304 E96 top5, token 64  ETA 3m07s" (width 20 bar).
std::string format_progress(std::size_t done, std::size_t total, const std::string& label,
                            std::optional<double> eta_seconds);
// Seconds left when `done` of `total` took `elapsed` seconds; nullopt before the first is done.
std::optional<double> estimate_eta(std::size_t done, std::size_t total, double elapsed_seconds);

class Progress {
public:
    enum class Mode { redraw, log_lines, off };
    static constexpr std::chrono::seconds kLogInterval{30};

    // redraw when stderr is a terminal and info messages are shown; log_lines otherwise; off under -q.
    static Mode mode_for_stderr();

    Progress(std::size_t total_candidates, Mode mode);
    void start_bucket(std::string label);
    void candidate_done();
    // More work joined the run (screening's finalists are measured a second time).
    void add_candidates(std::size_t n);
    // Clears the redrawn line so a log message can be printed on a line of its own.
    void clear_line();
    void finish_bucket();

private:
    using Clock = std::chrono::steady_clock;
    void draw_locked(bool force);

    std::mutex mutex_;
    std::size_t total_;
    const Mode mode_;
    std::size_t done_ = 0;
    std::string label_;
    Clock::time_point start_ = Clock::now();
    Clock::time_point last_draw_{};
    bool line_shown_ = false;
};

}  // namespace moetune::sweep
