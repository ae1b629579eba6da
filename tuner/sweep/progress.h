#pragma once
// The sweep's progress: candidates done / total, the (shape, bucket) being measured and an ETA
// from the time per unit of work so far, where a candidate's work grows with its bucket's token
// count (candidate_work): a count-based ETA said "6s" on the H200 when the last, largest buckets
// still had minutes to go. On a terminal it is one stderr line redrawn with \r;
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
// Seconds left when `done` of `total` work took `elapsed` seconds; nullopt before any is done.
std::optional<double> estimate_eta(double done, double total, double elapsed_seconds);

// The relative cost of measuring one candidate at `tokens`: a fixed part (launch, graph set-up,
// judging a small output) plus a part that grows with M (the kernel, downloading and judging its
// output). Fitted to the 2-GPU DSv4.1 sweep on the H200 (docs/sweep.md): ~12 ms per candidate up to
// M=64, ~0.3 s at 4096, ~0.85 s at 16384.
double candidate_work(int tokens);

class Progress {
public:
    enum class Mode { redraw, log_lines, off };
    static constexpr std::chrono::seconds kLogInterval{30};

    // redraw when stderr is a terminal and info messages are shown; log_lines otherwise; off under -q.
    static Mode mode_for_stderr();

    // total_work: the sum of candidate_work over the candidates.
    Progress(std::size_t total_candidates, double total_work, Mode mode);
    void start_bucket(std::string label);
    void candidate_done(double work);
    // More work joined the run (screening's finalists are measured a second time).
    void add_candidates(std::size_t n, double work_each);
    // The GPUs waited this long for the compiler: left out of the ETA's rate. The first bucket's kernels
    // compile before anything is measured (minutes, cold cache): counted, they made the first candidate's
    // ETA read 63h for a sweep of 5 minutes (session 62). Later buckets compile while the one before is
    // measured.
    void leave_out_wait(double seconds);
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
    double total_work_;
    double done_work_ = 0;
    std::string label_;
    Clock::time_point start_ = Clock::now();
    double waited_s_ = 0;  // leave_out_wait's sum
    Clock::time_point last_draw_{};
    bool line_shown_ = false;
};

}  // namespace moetune::sweep
