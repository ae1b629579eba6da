#pragma once
// A child process talking over its standard streams, for the measurement workers (POSIX):
//   stdin  a Unix socket, so a write to a child that died fails with EPIPE instead of raising
//          SIGPIPE in this process;
//   stdout a pipe carrying the child's answers, read a line at a time with a deadline;
//   stderr a pipe whose lines are passed through to this process's stderr as they come (the
//          child's log), the last one kept to explain a crash.
// Every descriptor this side keeps is close-on-exec, so children started by other threads do not
// inherit them (a worker must see EOF when its parent goes). The destructor kills and reaps the
// child: no process outlives its ChildProcess, none is left a zombie.
#include <chrono>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace moetune::measure {

class ChildProcess {
public:
    using Clock = std::chrono::steady_clock;

    // argv[0] is the executable's path. Throws std::runtime_error when it cannot be started.
    explicit ChildProcess(const std::vector<std::string>& argv);
    ~ChildProcess();
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;

    pid_t pid() const { return pid_; }

    // Writes all of `text` to the child's stdin. False when the child no longer reads (it exited).
    bool write(std::string_view text);

    enum class Read { line, eof, timeout };
    // The next line of the child's stdout (without '\n') into *line, forwarding its stderr meanwhile.
    // eof: the child closed stdout (it exited or is exiting); timeout: `deadline` passed first.
    Read read_line(std::string* line, Clock::time_point deadline);

    // The last non-empty line the child wrote to stderr ("" if none).
    const std::string& last_stderr_line() const { return last_stderr_line_; }

    // Closes the child's stdin (a worker's signal to finish), then waits up to `grace` for it to
    // exit, forwarding its remaining stderr, and kills it (SIGKILL) if it has not. Reaps it.
    // Returns how it ended (describe_exit). Idempotent.
    std::string stop(std::chrono::milliseconds grace);
    // SIGKILL now, then reap. Returns how it ended. Idempotent.
    std::string kill();
    // Reaps the child if it has exited, without waiting. True when it is still running.
    bool running();

private:
    void forward_stderr(std::string_view bytes);
    void drain_stderr(Clock::time_point deadline);
    void finish_stderr();
    std::string reap(bool block);

    pid_t pid_ = -1;
    int stdin_fd_ = -1;
    int stdout_fd_ = -1;
    int stderr_fd_ = -1;
    std::string stdout_buffer_;
    std::string stderr_buffer_;
    std::string last_stderr_line_;
    std::string exit_description_;  // set once reaped
};

// "status 1", "signal 6 (Aborted)" for a waitpid status.
std::string describe_exit(int wait_status);

}  // namespace moetune::measure
