#pragma once
// Where a sweep writes (checked before any GPU work with common/atomic_file.h's unwritable_reason),
// and the error when it cannot.
#include <filesystem>
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

}  // namespace moetune::sweep
