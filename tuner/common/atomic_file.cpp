#include "common/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace moetune {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, const char* what, int err) {
    throw std::runtime_error("cannot write " + path.string() + ": " + what + ": " + std::strerror(err));
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
    const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    std::string tmpl = (dir / ("." + path.filename().string() + ".tmp.XXXXXX")).string();
    int fd = ::mkstemp(tmpl.data());
    if (fd < 0) fail(path, "creating temporary file", errno);

    const char* p = content.data();
    std::size_t left = content.size();
    while (left > 0) {
        ssize_t n = ::write(fd, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            int err = errno;
            ::close(fd);
            ::unlink(tmpl.c_str());
            fail(path, "writing", err);
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    // mkstemp creates 0600; a table is an ordinary file.
    ::fchmod(fd, 0644);
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        int err = errno;
        ::unlink(tmpl.c_str());
        fail(path, "flushing", err);
    }
    if (::rename(tmpl.c_str(), path.c_str()) != 0) {
        int err = errno;
        ::unlink(tmpl.c_str());
        fail(path, "renaming into place", err);
    }
    // Persist the rename itself.
    int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
}

std::optional<std::string> unwritable_reason(const std::filesystem::path& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_directory(path, ec)) return path.string() + " is a directory";
    const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
    if (!fs::exists(dir, ec)) return "the directory " + dir.string() + " of " + path.string() + " does not exist";
    if (!fs::is_directory(dir, ec)) return dir.string() + " (the directory of " + path.string() + ") is not a directory";
    // The same kind of write the writer above does: a new file in that directory.
    std::string probe = (dir / ".moetune-write-probe-XXXXXX").string();
    const int fd = ::mkstemp(probe.data());
    if (fd < 0) return "cannot create a file in " + dir.string() + ": " + std::strerror(errno);
    ::close(fd);
    ::unlink(probe.c_str());
    return std::nullopt;
}

}  // namespace moetune
