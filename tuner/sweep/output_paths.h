#pragma once
// Where a sweep writes, checked before any GPU work: a sweep that runs for hours must not find
// out at the first finished bucket that it cannot save it.
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

namespace moetune::sweep {

// A result file (OUT, the profile, the report) could not be written: exit 4.
class CannotWriteOutput : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// output/<stem of the shapes file>_tuned.csv, relative to the working directory.
std::filesystem::path default_output_path(const std::filesystem::path& shapes);

// Why a file cannot be written at `path` (it is a directory; its directory is missing, not a
// directory or not writable), found by creating and removing a probe file next to it; nullopt
// when it can. Touches nothing else.
std::optional<std::string> unwritable_reason(const std::filesystem::path& path);

}  // namespace moetune::sweep
