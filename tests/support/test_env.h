#pragma once
// Where tests find their inputs: the project's fixtures, the shared AITER tables (optional), the
// built moetune binary (for CLI tests), and whether a GPU is usable.
#include <filesystem>
#include <string>

namespace moetune::test {

inline constexpr int kSkipExitCode = 77;

// tests/fixtures in the source tree.
std::filesystem::path fixtures_dir();
// ../shared next to the checkout, or $MOETUNE_SHARED_DIR.
std::filesystem::path shared_dir();
bool shared_dir_present();
// shapes/dsv41_flash_ep4_a8w4.csv, the project's reference shape file.
std::filesystem::path reference_shapes_file();
// The moetune executable under test.
std::filesystem::path moetune_binary();
// Empty when a GPU can be used; otherwise why not (no driver, no device, built without GPU).
std::string gpu_unavailable_reason();

// A fresh empty directory under the build tree, removed on destruction.
class TempDir {
public:
    explicit TempDir(const std::string& tag);
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return path_; }
    std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

private:
    std::filesystem::path path_;
};

// Runs a command line through /bin/sh, capturing stdout and stderr separately.
struct ProcessResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};
ProcessResult run_process(const std::string& command_line);
// Runs the moetune binary with the given (already shell-quoted) arguments.
ProcessResult run_moetune(const std::string& args);
std::string shell_quote(const std::string& s);
std::string read_text(const std::filesystem::path& p);
// Writes `text` (as bytes) to dir/name; returns that path.
std::string write_file(const TempDir& dir, const std::string& name, const std::string& text);
inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace moetune::test
