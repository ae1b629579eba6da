#include "support/catch.hpp"

#include <algorithm>
#include <filesystem>
#include <iterator>

#include "table_cli.h"

using namespace moetune::test;
namespace fs = std::filesystem;

namespace {

std::string merge_args(const std::string& out, const std::string& extra = "") {
    return "merge " + extra + " -o " + shell_quote(out) + " " + quoted_fixture("dup_key_a.csv") + " " +
           quoted_fixture("dup_key_b.csv");
}

std::size_t entries_in(const fs::path& dir) {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

}  // namespace

TEST_CASE("moetune merge: AITER's merge, the drops reported, the inputs untouched") {
    TempDir tmp("merge");
    const std::string a_before = read_text(table_fixture_path("dup_key_a.csv"));
    const std::string b_before = read_text(table_fixture_path("dup_key_b.csv"));
    const std::string out = (tmp / "merged.csv").string();

    const ProcessResult r = run_moetune(merge_args(out));
    CHECK(r.exit_code == 0);
    CHECK(r.out.empty());
    CHECK(r.err.find("dup_key_a.csv:3: dropped (gfx950, 256, 2, 7168") != std::string::npos);
    CHECK(r.err.find("kept " + table_fixture_path("dup_key_b.csv") + ":2: us 24.4433 is higher") != std::string::npos);
    CHECK(r.err.find("dup_key_b.csv:3: dropped") != std::string::npos);
    CHECK(r.err.find("wrote 2 row(s) from 2 file(s)") != std::string::npos);

    // The first file's 28 columns, then _tag (new in the legacy file) before tflops.
    const std::string merged = read_text(out);
    CHECK(merged.find("gfx,cu_num,token,") == 0);
    CHECK(merged.find(",xbf16,flat,_tag,tflops,bw\n") != std::string::npos);
    CHECK(merged.find("\ngfx950,256,1,7168,512,384,6,") != std::string::npos);
    CHECK(merged.find(",20.9291,0,0,0,,6.31,202009.64\n") != std::string::npos);
    CHECK(merged.find("\ngfx950,256,2,7168,512,384,6,") != std::string::npos);
    CHECK(merged.find(",22.0,0,0,0,,") != std::string::npos);  // the legacy row, xbf16/flat filled with 0
    CHECK(std::count(merged.begin(), merged.end(), '\n') == 3);

    CHECK(read_text(table_fixture_path("dup_key_a.csv")) == a_before);
    CHECK(read_text(table_fixture_path("dup_key_b.csv")) == b_before);
    CHECK(entries_in(tmp.path()) == 1);  // no temporary file left behind
}

TEST_CASE("moetune merge: --on-duplicate first / last") {
    TempDir tmp("merge-policy");
    const std::string out = (tmp / "merged.csv").string();
    REQUIRE(run_moetune(merge_args(out, "--on-duplicate first")).exit_code == 0);
    CHECK(read_text(out).find(",24.4433,") != std::string::npos);
    REQUIRE(run_moetune(merge_args(out, "--on-duplicate last")).exit_code == 0);
    CHECK(read_text(out).find(",24.4433,") == std::string::npos);
    CHECK(read_text(out).find(",22.0,") != std::string::npos);
}

TEST_CASE("moetune merge: --on-duplicate error exits 1 and writes nothing") {
    TempDir tmp("merge-error");
    const std::string out = (tmp / "merged.csv").string();
    const ProcessResult r = run_moetune(merge_args(out, "--on-duplicate error"));
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("dup_key_b.csv:2: duplicate") != std::string::npos);
    CHECK(r.err.find("nothing written") != std::string::npos);
    CHECK_FALSE(fs::exists(out));
}

TEST_CASE("moetune merge: -o may name an input, which is then replaced whole") {
    TempDir tmp("merge-inplace");
    const fs::path a = tmp / "a.csv", b = tmp / "b.csv";
    fs::copy_file(table_fixture_path("dup_key_a.csv"), a);
    fs::copy_file(table_fixture_path("dup_key_b.csv"), b);
    const std::string b_before = read_text(b);
    const ProcessResult r =
        run_moetune("merge -o " + shell_quote(a.string()) + " " + shell_quote(a.string()) + " " + shell_quote(b.string()));
    CHECK(r.exit_code == 0);
    CHECK(read_text(a).find(",22.0,") != std::string::npos);
    CHECK(read_text(b) == b_before);
}

TEST_CASE("moetune merge: an output that cannot be written exits 4") {
    TempDir tmp("merge-unwritable");
    const std::string out = (tmp / "no-such-dir" / "merged.csv").string();
    const ProcessResult r = run_moetune(merge_args(out));
    CHECK(r.exit_code == 4);
    CHECK(r.err.find("cannot write") != std::string::npos);
    CHECK_FALSE(fs::exists(out));
}

TEST_CASE("moetune merge: unreadable or unmergeable inputs exit 2 naming file and line") {
    TempDir tmp("merge-bad-input");
    const std::string out = (tmp / "merged.csv").string();
    const ProcessResult missing = run_moetune("merge -o " + shell_quote(out) + " " + quoted_fixture("no_such_file.csv"));
    CHECK(missing.exit_code == 2);
    const ProcessResult untuned = run_moetune("merge -o " + shell_quote(out) + " " + quoted_fixture("clean_untuned.csv"));
    CHECK(untuned.exit_code == 2);
    CHECK(untuned.err.find("clean_untuned.csv:1: not a tuned table") != std::string::npos);
    const ProcessResult extra = run_moetune("merge -o " + shell_quote(out) + " " + quoted_fixture("extra_fields.csv"));
    CHECK(extra.exit_code == 2);
    CHECK(extra.err.find("extra_fields.csv:3:") != std::string::npos);
    CHECK(run_moetune("merge " + quoted_fixture("clean_tuned.csv")).exit_code == 2);  // no -o
    CHECK(run_moetune("merge --on-duplicate newest -o " + shell_quote(out) + " " + quoted_fixture("clean_tuned.csv"))
              .exit_code == 2);
    CHECK_FALSE(fs::exists(out));
}
