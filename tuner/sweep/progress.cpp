#include "sweep/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

namespace moetune::sweep {
namespace {

// A terminal is redrawn at most this often: hundreds of candidates finish per second on a
// cache-warm sweep, and each redraw is a write to the terminal.
constexpr std::chrono::milliseconds kRedrawInterval{100};
constexpr int kBarWidth = 20;

}  // namespace

std::string format_duration(double seconds) {
    const long long s = std::llround(std::max(0.0, seconds));
    if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
    if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
    return fmt::format("{}s", s);
}

std::optional<double> estimate_eta(double done, double total, double elapsed_seconds) {
    if (!(done > 0)) return std::nullopt;
    return elapsed_seconds / done * std::max(0.0, total - done);
}

double candidate_work(int tokens) { return 1.0 + tokens / 256.0; }

std::string format_progress(std::size_t done, std::size_t total, const std::string& label,
                            std::optional<double> eta_seconds) {
    const int filled = total == 0 ? kBarWidth : static_cast<int>(kBarWidth * std::min(done, total) / total);
    std::string bar(static_cast<std::size_t>(filled), '=');
    if (filled < kBarWidth) bar += '>';
    bar.resize(kBarWidth, ' ');
    return fmt::format("[{}] {}/{} candidates  {}  ETA {}", bar, done, total, label,
                       eta_seconds ? format_duration(*eta_seconds) : "?");
}

Progress::Mode Progress::mode_for_stderr() {
    if (!spdlog::should_log(spdlog::level::info)) return Mode::off;
    return ::isatty(STDERR_FILENO) ? Mode::redraw : Mode::log_lines;
}

Progress::Progress(std::size_t total_candidates, double total_work, Mode mode)
    : total_(total_candidates), mode_(mode), total_work_(total_work) {}

void Progress::start_bucket(std::string label) {
    std::lock_guard lock(mutex_);
    label_ = std::move(label);
    draw_locked(true);
}

void Progress::add_candidates(std::size_t n, double work_each) {
    std::lock_guard lock(mutex_);
    total_ += n;
    total_work_ += double(n) * work_each;
}

void Progress::leave_out_wait(double seconds) {
    std::lock_guard lock(mutex_);
    waited_s_ += seconds;
}

void Progress::candidate_done(double work) {
    std::lock_guard lock(mutex_);
    ++done_;
    done_work_ += work;
    draw_locked(false);
}

void Progress::finish_bucket() {
    std::lock_guard lock(mutex_);
    if (mode_ == Mode::log_lines) draw_locked(true);
}

void Progress::clear_line() {
    std::lock_guard lock(mutex_);
    if (mode_ != Mode::redraw || !line_shown_) return;
    std::fputs("\r\x1b[K", stderr);
    std::fflush(stderr);
    line_shown_ = false;
}

void Progress::draw_locked(bool force) {
    if (mode_ == Mode::off) return;
    const Clock::time_point now = Clock::now();
    const auto interval = mode_ == Mode::redraw ? std::chrono::duration_cast<Clock::duration>(kRedrawInterval)
                                                : std::chrono::duration_cast<Clock::duration>(kLogInterval);
    if (!force && now - last_draw_ < interval) return;
    last_draw_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count() - waited_s_;
    const std::string line = format_progress(done_, total_, label_, estimate_eta(done_work_, total_work_, elapsed));
    if (mode_ == Mode::log_lines) {
        spdlog::info("{}", line);
        return;
    }
    std::fprintf(stderr, "\r%s\x1b[K", line.c_str());
    std::fflush(stderr);
    line_shown_ = true;
}

}  // namespace moetune::sweep
