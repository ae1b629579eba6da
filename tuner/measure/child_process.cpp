#include "measure/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace moetune::measure {
namespace {

std::runtime_error system_error(const std::string& what, int error) {
    return std::runtime_error(what + ": " + std::strerror(error));
}

void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

// Milliseconds until `deadline` for poll(), rounded up so a poll never returns just before it.
int poll_timeout_ms(ChildProcess::Clock::time_point deadline) {
    const auto left = deadline - ChildProcess::Clock::now();
    if (left <= ChildProcess::Clock::duration::zero()) return 0;
    const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
    return ms > 60'000 ? 60'000 : static_cast<int>(ms);
}

void write_all_to_stderr(std::string_view text) {
    while (!text.empty()) {
        const ssize_t n = ::write(STDERR_FILENO, text.data(), text.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;  // our own stderr is gone; the child's log is lost, nothing else is
        text.remove_prefix(static_cast<std::size_t>(n));
    }
}

}  // namespace

std::string describe_exit(int status) {
    if (WIFEXITED(status)) return "status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        const char* name = ::strsignal(sig);
        return "signal " + std::to_string(sig) + (name ? std::string(" (") + name + ")" : std::string());
    }
    return "wait status " + std::to_string(status);
}

ChildProcess::ChildProcess(const std::vector<std::string>& argv) {
    if (argv.empty()) throw std::invalid_argument("ChildProcess: no executable given");
    int in[2], out[2], err[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0) throw system_error("socketpair", errno);
    if (::pipe2(out, O_CLOEXEC) != 0) {
        const int e = errno;
        ::close(in[0]), ::close(in[1]);
        throw system_error("pipe2", e);
    }
    if (::pipe2(err, O_CLOEXEC) != 0) {
        const int e = errno;
        ::close(in[0]), ::close(in[1]), ::close(out[0]), ::close(out[1]);
        throw system_error("pipe2", e);
    }

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    // dup2 onto 0/1/2 clears close-on-exec on the copies; the originals close at exec.
    posix_spawn_file_actions_adddup2(&actions, in[1], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const int spawn_error = ::posix_spawn(&pid_, argv[0].c_str(), &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(in[1]), ::close(out[1]), ::close(err[1]);
    stdin_fd_ = in[0];
    stdout_fd_ = out[0];
    stderr_fd_ = err[0];
    if (spawn_error != 0) {
        pid_ = -1;
        close_fd(stdin_fd_), close_fd(stdout_fd_), close_fd(stderr_fd_);
        throw system_error("cannot start " + argv[0], spawn_error);
    }
}

ChildProcess::~ChildProcess() { kill(); }

bool ChildProcess::write(std::string_view text) {
    while (!text.empty()) {
        if (stdin_fd_ < 0) return false;
        const ssize_t n = ::send(stdin_fd_, text.data(), text.size(), MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return false;  // EPIPE / ECONNRESET: the child is gone
        text.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

void ChildProcess::forward_stderr(std::string_view bytes) {
    stderr_buffer_.append(bytes);
    std::size_t start = 0;
    for (std::size_t nl; (nl = stderr_buffer_.find('\n', start)) != std::string::npos; start = nl + 1) {
        std::string_view line(stderr_buffer_.data() + start, nl - start);
        write_all_to_stderr(std::string(line) + '\n');
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (!line.empty()) last_stderr_line_ = std::string(line);
    }
    stderr_buffer_.erase(0, start);
}

void ChildProcess::finish_stderr() {
    if (!stderr_buffer_.empty()) forward_stderr("\n");  // a last line without its newline
    close_fd(stderr_fd_);
}

ChildProcess::Read ChildProcess::read_line(std::string* line, Clock::time_point deadline) {
    for (;;) {
        if (const std::size_t nl = stdout_buffer_.find('\n'); nl != std::string::npos) {
            *line = stdout_buffer_.substr(0, nl);
            stdout_buffer_.erase(0, nl + 1);
            return Read::line;
        }
        if (stdout_fd_ < 0) return Read::eof;
        pollfd fds[2] = {{stdout_fd_, POLLIN, 0}, {stderr_fd_, POLLIN, 0}};
        const int ready = ::poll(fds, stderr_fd_ >= 0 ? 2 : 1, poll_timeout_ms(deadline));
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) throw system_error("poll", errno);
        if (ready == 0) {
            if (Clock::now() >= deadline) return Read::timeout;
            continue;
        }
        char buffer[4096];
        if (stderr_fd_ >= 0 && fds[1].revents != 0) {
            const ssize_t n = ::read(stderr_fd_, buffer, sizeof buffer);
            if (n > 0) forward_stderr({buffer, static_cast<std::size_t>(n)});
            else if (n == 0 || errno != EINTR) {
                finish_stderr();
            }
        }
        if (fds[0].revents != 0) {
            const ssize_t n = ::read(stdout_fd_, buffer, sizeof buffer);
            if (n > 0) stdout_buffer_.append(buffer, static_cast<std::size_t>(n));
            else if (n == 0 || errno != EINTR) close_fd(stdout_fd_);
        }
    }
}

void ChildProcess::drain_stderr(Clock::time_point deadline) {
    while (stderr_fd_ >= 0) {
        pollfd fd{stderr_fd_, POLLIN, 0};
        const int ready = ::poll(&fd, 1, poll_timeout_ms(deadline));
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) return;
        char buffer[4096];
        const ssize_t n = ::read(stderr_fd_, buffer, sizeof buffer);
        if (n > 0) forward_stderr({buffer, static_cast<std::size_t>(n)});
        else if (n == 0 || errno != EINTR) {
            finish_stderr();
        }
    }
}

std::string ChildProcess::reap(bool block) {
    if (pid_ < 0) return exit_description_;
    int status = 0;
    pid_t r;
    do r = ::waitpid(pid_, &status, block ? 0 : WNOHANG);
    while (r < 0 && errno == EINTR);
    if (r == 0) return {};  // still running
    exit_description_ = r == pid_ ? describe_exit(status) : "lost (" + std::string(std::strerror(errno)) + ")";
    pid_ = -1;
    close_fd(stdin_fd_);
    return exit_description_;
}

bool ChildProcess::running() { return pid_ >= 0 && reap(false).empty(); }

std::string ChildProcess::stop(std::chrono::milliseconds grace) {
    close_fd(stdin_fd_);
    const Clock::time_point deadline = Clock::now() + grace;
    drain_stderr(deadline);  // returns at the child's exit (EOF) or the deadline
    while (running() && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return kill();
}

std::string ChildProcess::kill() {
    if (running()) {
        ::kill(pid_, SIGKILL);
        reap(true);
    }
    // Its stderr closes with it; keep what it wrote last (to explain the exit).
    drain_stderr(Clock::now() + std::chrono::milliseconds(200));
    close_fd(stdin_fd_), close_fd(stdout_fd_), close_fd(stderr_fd_);
    return exit_description_;
}

}  // namespace moetune::measure
