#include "common/atomic_file.h"

#include <sys/stat.h>

#include <filesystem>
#include <stdexcept>

#include "support/catch.hpp"
#include "support/test_env.h"

using moetune::unwritable_reason;
using moetune::write_file_atomically;
using moetune::test::read_text;
using moetune::test::TempDir;
using moetune::test::write_file;

namespace {

std::size_t entries(const std::filesystem::path& dir) {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
    return n;
}

}  // namespace

TEST_CASE("write_file_atomically: the whole content, over an older file, as an ordinary file, no temporary left") {
    TempDir dir("atomic");
    const std::filesystem::path path = dir / "table.csv";
    write_file_atomically(path, "a,b\n1,2\n");
    CHECK(read_text(path) == "a,b\n1,2\n");
    write_file_atomically(path, "a,b\n");  // shorter than before: nothing of the old file stays
    CHECK(read_text(path) == "a,b\n");
    CHECK(entries(dir.path()) == 1);
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0644);  // not mkstemp's 0600: tables are shared files
}

TEST_CASE("write_file_atomically: a failed write names the path and leaves the old file") {
    TempDir dir("atomic_fail");
    const std::filesystem::path missing = dir / "no" / "table.csv";
    CHECK_THROWS_WITH(write_file_atomically(missing, "x"),
                      Catch::Matchers::StartsWith("cannot write " + missing.string() + ": creating temporary file"));
    // The target is a directory: the rename fails and the temporary file is removed again.
    std::filesystem::create_directory(dir / "taken");
    write_file(dir, "taken/keep", "old");
    CHECK_THROWS_WITH(write_file_atomically(dir / "taken", "x"), Catch::Matchers::ContainsSubstring("renaming into place"));
    CHECK(read_text(dir / "taken" / "keep") == "old");
    CHECK(entries(dir.path()) == 1);
}

TEST_CASE("unwritable_reason: why a path cannot be written, found without leaving anything behind") {
    TempDir dir("paths");
    CHECK_FALSE(unwritable_reason(dir / "out.csv"));
    CHECK(std::filesystem::is_empty(dir.path()));  // the probe is removed
    CHECK(*unwritable_reason(dir / "missing" / "out.csv") ==
          "the directory " + (dir / "missing").string() + " of " + (dir / "missing" / "out.csv").string() +
              " does not exist");
    CHECK(*unwritable_reason(dir.path()) == dir.path().string() + " is a directory");
    write_file(dir, "file", "x");
    CHECK(*unwritable_reason(dir / "file" / "out.csv") ==
          (dir / "file").string() + " (the directory of " + (dir / "file" / "out.csv").string() + ") is not a directory");
}
