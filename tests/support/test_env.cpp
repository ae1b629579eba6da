#include "support/test_env.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace moetune::test {
namespace fs = std::filesystem;

fs::path fixtures_dir() { return fs::path(MOETUNE_SOURCE_DIR) / "tests" / "fixtures"; }

fs::path shared_dir() {
    if (const char* env = std::getenv("MOETUNE_SHARED_DIR"); env && *env) return env;
    return fs::path(MOETUNE_SOURCE_DIR).parent_path() / "shared";
}

bool shared_dir_present() { return fs::is_directory(shared_dir() / "aiter-tables"); }

fs::path reference_shapes_file() { return fs::path(MOETUNE_SOURCE_DIR) / "shapes" / "dsv41_flash_ep4_a8w4.csv"; }

fs::path moetune_binary() {
    if (const char* env = std::getenv("MOETUNE_BINARY"); env && *env) return env;
    return MOETUNE_BINARY_PATH;
}

TempDir::TempDir(const std::string& tag) {
    std::random_device rd;
    fs::path base = fs::path(MOETUNE_BINARY_DIR) / "test-tmp";
    fs::create_directories(base);
    path_ = base / (tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    fs::create_directories(path_);
}

TempDir::~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
}

std::string write_file(const TempDir& dir, const std::string& name, const std::string& text) {
    std::ofstream(dir / name, std::ios::binary) << text;
    return (dir / name).string();
}

std::string read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + p.string());
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) {
        if (c == '\'') q += "'\\''";
        else q += c;
    }
    return q + "'";
}

ProcessResult run_process(const std::string& command_line) {
    TempDir tmp("proc");
    const fs::path out = tmp / "stdout", err = tmp / "stderr";
    const std::string full = command_line + " >" + shell_quote(out.string()) + " 2>" + shell_quote(err.string());
    int status = std::system(full.c_str());
    ProcessResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = read_text(out);
    r.err = read_text(err);
    return r;
}

ProcessResult run_moetune(const std::string& args) {
    return run_process(shell_quote(moetune_binary().string()) + " " + args);
}

}  // namespace moetune::test
