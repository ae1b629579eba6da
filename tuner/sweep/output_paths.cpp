#include "sweep/output_paths.h"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace moetune::sweep {

std::filesystem::path default_output_path(const std::filesystem::path& shapes) {
    return std::filesystem::path("output") / (shapes.stem().string() + "_tuned.csv");
}

std::optional<std::string> unwritable_reason(const std::filesystem::path& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_directory(path, ec)) return path.string() + " is a directory";
    const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
    if (!fs::exists(dir, ec)) return "the directory " + dir.string() + " of " + path.string() + " does not exist";
    if (!fs::is_directory(dir, ec)) return dir.string() + " (the directory of " + path.string() + ") is not a directory";
    // The same kind of write the atomic writer does: a new file in that directory.
    std::string probe = (dir / ".moetune-write-probe-XXXXXX").string();
    const int fd = ::mkstemp(probe.data());
    if (fd < 0) return "cannot create a file in " + dir.string() + ": " + std::strerror(errno);
    ::close(fd);
    ::unlink(probe.c_str());
    return std::nullopt;
}

}  // namespace moetune::sweep
