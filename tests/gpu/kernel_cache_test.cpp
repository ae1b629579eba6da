// The disk cache: hits skip the compiler, damaged entries are recompiled, and processes sharing a
// cache directory never see a torn entry.
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "rtc/compiler.h"
#include "rtc/kernel_cache.h"
#include "support/catch.hpp"
#include "support/test_env.h"

using namespace moetune::rtc;
namespace fs = std::filesystem;

namespace {

const std::string kArch = MOETUNE_TEST_ARCH;

CompileRequest small_request() {
    CompileRequest r;
    r.source_name = "cached.hip";
    r.source = "#include \"common/host_device.h\"\n__global__ void cached(float* x) { x[threadIdx.x] += 1.0f; }\n";
    r.name_expressions = {"cached"};
    r.arch = kArch;
    return r;
}

CompiledCode sample_code(const std::string& tag) {
    CompiledCode c;
    c.code = std::string(
                 "\x7f"
                 "ELF\0binary\0",
                 12) +
             tag;
    c.log = "warning: " + tag;
    c.lowered_names = {"_Z1av", "_Z1bv_" + tag};
    c.compile_ms = 12.5;
    return c;
}

bool same(const CompiledCode& a, const CompiledCode& b) {
    return a.code == b.code && a.log == b.log && a.lowered_names == b.lowered_names;
}

void overwrite(const fs::path& p, const std::string& bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << bytes;
}

}  // namespace

TEST_CASE("the second compile of a request is a cache hit with the same code object", "[rtc][cache]") {
    moetune::test::TempDir dir("rtc-cache");
    const KernelCache cache(dir.path());
    const CompileRequest r = small_request();

    const CompiledCode first = compile(r, &cache);
    CHECK_FALSE(first.from_cache);
    CHECK(fs::exists(cache.entry_path(cache_key(r))));

    const CompiledCode second = compile(r, &cache);
    CHECK(second.from_cache);
    CHECK(same(first, second));
    CHECK(std::abs(second.compile_ms - first.compile_ms) < 1e-3);  // stored with 6 decimals

    CompileRequest changed = r;
    changed.options.push_back("-DCHANGED=1");
    CHECK_FALSE(compile(changed, &cache).from_cache);
}

TEST_CASE("an entry round-trips every field, binary code included", "[rtc][cache]") {
    moetune::test::TempDir dir("rtc-roundtrip");
    const KernelCache cache(dir.path());
    CHECK_FALSE(cache.load("0123").has_value());
    cache.store("0123", sample_code("x"));
    const auto loaded = cache.load("0123");
    REQUIRE(loaded.has_value());
    CHECK(same(*loaded, sample_code("x")));
    CHECK(loaded->compile_ms == 12.5);
    CHECK(loaded->from_cache);
    // An entry is only valid under its own key.
    fs::copy_file(cache.entry_path("0123"), cache.entry_path("4567"));
    CHECK_FALSE(cache.load("4567").has_value());
}

TEST_CASE("a damaged entry reads as a miss and the next compile repairs it", "[rtc][cache]") {
    moetune::test::TempDir dir("rtc-corrupt");
    const KernelCache cache(dir.path());
    const CompileRequest r = small_request();
    const fs::path entry = cache.entry_path(cache_key(r));
    const CompiledCode good = compile(r, &cache);
    const std::string bytes = moetune::test::read_text(entry);

    std::string flipped = bytes;
    flipped[flipped.size() / 2] ^= 0x01;
    for (const std::string& damage :
         {std::string(), bytes.substr(0, bytes.size() / 2), flipped, std::string("garbage")}) {
        INFO("entry of " << damage.size() << " bytes");
        overwrite(entry, damage);
        CHECK_FALSE(cache.load(cache_key(r)).has_value());
        const CompiledCode again = compile(r, &cache);
        CHECK_FALSE(again.from_cache);
        CHECK(again.code == good.code);
        CHECK(compile(r, &cache).from_cache);
    }
}

TEST_CASE("processes writing and reading one entry concurrently never see a torn entry", "[rtc][cache]") {
    moetune::test::TempDir dir("rtc-concurrent");
    const KernelCache cache(dir.path());
    // Large enough that a non-atomic write would be observable half-done.
    CompiledCode big = sample_code("big");
    big.code += std::string(4 << 20, 'z');

    constexpr int kProcesses = 4, kRounds = 25;
    std::vector<pid_t> children;
    for (int p = 0; p < kProcesses; ++p) {
        const pid_t pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            // Child: no Catch2 here; the exit status reports a bad read.
            int bad = 0;
            for (int i = 0; i < kRounds; ++i) {
                cache.store("shared", big);
                const auto loaded = cache.load("shared");
                if (!loaded || !same(*loaded, big)) ++bad;
            }
            ::_exit(bad == 0 ? 0 : 1);
        }
        children.push_back(pid);
    }
    for (pid_t pid : children) {
        int status = 0;
        REQUIRE(::waitpid(pid, &status, 0) == pid);
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
    }
    const auto final_entry = cache.load("shared");
    REQUIRE(final_entry.has_value());
    CHECK(same(*final_entry, big));
    // No temporary files left behind.
    int files = 0;
    for (const auto& f : fs::directory_iterator(dir.path() / "rtc")) files += f.is_regular_file();
    CHECK(files == 1);
}

TEST_CASE("the default cache directory follows XDG_CACHE_HOME, then HOME", "[rtc][cache]") {
    const char* old_xdg = std::getenv("XDG_CACHE_HOME");
    const std::string saved_xdg = old_xdg ? old_xdg : "";
    ::setenv("XDG_CACHE_HOME", "/tmp/xdg-test", 1);
    CHECK(KernelCache::default_dir() == fs::path("/tmp/xdg-test/moetune"));
    ::setenv("XDG_CACHE_HOME", "", 1);
    const char* home = std::getenv("HOME");
    if (home && *home) CHECK(KernelCache::default_dir() == fs::path(home) / ".cache" / "moetune");
    if (old_xdg)
        ::setenv("XDG_CACHE_HOME", saved_xdg.c_str(), 1);
    else
        ::unsetenv("XDG_CACHE_HOME");
}

TEST_CASE("an unwritable cache directory does not fail the compile", "[rtc][cache]") {
    moetune::test::TempDir dir("rtc-readonly");
    // A regular file where the cache directory should be: creating rtc/ under it fails.
    overwrite(dir.path() / "not-a-dir", "x");
    const KernelCache cache(dir.path() / "not-a-dir");
    const CompiledCode code = compile(small_request(), &cache);
    CHECK_FALSE(code.code.empty());
    CHECK_FALSE(code.from_cache);
    CHECK_THROWS_AS(cache.store("k", code), std::runtime_error);
}
