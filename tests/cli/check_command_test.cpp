#include "support/catch.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "table_cli.h"

using namespace moetune::test;

TEST_CASE("moetune check: exit 0 for a clean table, with a text summary") {
    const ProcessResult r = run_moetune("check " + quoted_fixture("clean_tuned.csv"));
    CHECK(r.exit_code == 0);
    CHECK(r.out == "0 error(s), 0 warning(s) in 1 file(s)\n");
}

TEST_CASE("moetune check: warnings pass unless --strict") {
    const ProcessResult plain = run_moetune("check " + quoted_fixture("unreachable_bucket.csv"));
    CHECK(plain.exit_code == 0);
    CHECK(plain.out.find(table_fixture_path("unreachable_bucket.csv") + ":2: warning: token 96") == 0);
    CHECK(plain.out.find("[unreachable-bucket]\n") != std::string::npos);
    CHECK(run_moetune("check --strict " + quoted_fixture("unreachable_bucket.csv")).exit_code == 1);
    CHECK(run_moetune("check --strict " + quoted_fixture("clean_tuned.csv")).exit_code == 0);
}

TEST_CASE("moetune check: exit 1 on errors, in the merge order given") {
    const ProcessResult r =
        run_moetune("check " + quoted_fixture("dup_key_a.csv") + " " + quoted_fixture("dup_key_b.csv"));
    CHECK(r.exit_code == 1);
    CHECK(r.out.find("2 error(s), 1 warning(s) in 2 file(s)") != std::string::npos);
}

TEST_CASE("moetune check: moetune kernels that libmoetune would refuse are errors, each with its reason") {
    const ProcessResult r = run_moetune("check " + quoted_fixture("bad_moetune_kernels.csv"));
    CHECK(r.exit_code == 1);
    const std::string file = table_fixture_path("bad_moetune_kernels.csv");
    for (const char* expected :
         {":3: error: kernelName1 'moetune_moe1_afp8_wfp4_bf16_t32x64x256_fp8' is not a moetune kernel: stage-1 names "
          "need _gui",
          ":4: error: kernelName1 'moetune_moe2_afp8_wfp4_bf16_t32x256x256_atomic' is a stage-2 kernel: libmoetune "
          "will not load this table [bad-moetune-kernel]",
          ":5: error: kernelName1 'moetune_moe1_afp8_wfp4_bf16_t32x64x256_gui' walks sort blocks of 32 rows, the "
          "row's block_m is 64",
          ":5: error: kernelName2 'moetune_moe2_afp8_wfp4_bf16_t32x256x256_atomic' walks sort blocks of 32 rows",
          ":6: error: a moetune kernel beside one of another family"}) {
        INFO(expected);
        CHECK(r.out.find(file + expected) != std::string::npos);
    }
    CHECK(r.out.find(":2:") == std::string::npos);  // a well-formed pair
    CHECK(r.out.find("5 error(s), 0 warning(s) in 1 file(s)") != std::string::npos);
}

TEST_CASE("moetune check: json") {
    const ProcessResult r = run_moetune("check --format json " + quoted_fixture("dup_key_in_file.csv") + " " +
                                        quoted_fixture("unreachable_bucket.csv"));
    CHECK(r.exit_code == 1);
    const auto doc = nlohmann::json::parse(r.out);
    CHECK(doc["files"] == nlohmann::json::array({table_fixture_path("dup_key_in_file.csv"),
                                                 table_fixture_path("unreachable_bucket.csv")}));
    CHECK(doc["errors"] == 1);
    CHECK(doc["warnings"] == 3);
    REQUIRE(doc["findings"].size() == 4);
    const auto& first = doc["findings"][0];
    CHECK(first["severity"] == "error");
    CHECK(first["code"] == "duplicate-key");
    CHECK(first["file"] == table_fixture_path("dup_key_in_file.csv"));
    CHECK(first["line"] == 4);
    CHECK(first["message"].get<std::string>().find("same key as line 2") == 0);
    const auto& second = doc["findings"][1];
    CHECK(second["severity"] == "warning");
    CHECK(second["code"] == "unreachable-bucket");
    CHECK(second["file"] == table_fixture_path("unreachable_bucket.csv"));
    CHECK(second["line"] == 2);
    // Documented key order.
    CHECK(r.out.find("\"files\"") < r.out.find("\"findings\""));
    CHECK(r.out.find("\"findings\"") < r.out.find("\"errors\""));
    CHECK(r.out.find("\"errors\"") < r.out.find("\"warnings\""));
}

TEST_CASE("moetune check: github annotations, one per finding") {
    const ProcessResult r = run_moetune("check --format github " + quoted_fixture("bad_values.csv") + " " +
                                        quoted_fixture("unreachable_bucket.csv"));
    CHECK(r.exit_code == 1);
    const std::string bad = table_fixture_path("bad_values.csv");
    CHECK(r.out.find("::error file=" + bad + ",line=2::[bad-value] token '0' is not a whole number >= 1\n") == 0);
    CHECK(r.out.find("::warning file=" + table_fixture_path("unreachable_bucket.csv") + ",line=6::[unreachable-bucket]") !=
          std::string::npos);
    CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 11);
}

TEST_CASE("moetune check: usage errors and unopenable files exit 2") {
    const ProcessResult missing = run_moetune("check " + quoted_fixture("no_such_file.csv"));
    CHECK(missing.exit_code == 2);
    CHECK(missing.err.find("no_such_file.csv") != std::string::npos);
    CHECK(missing.out.empty());
    CHECK(run_moetune("check").exit_code == 2);
    CHECK(run_moetune("check --format xml " + quoted_fixture("clean_tuned.csv")).exit_code == 2);
}

TEST_CASE("moetune check: a file that is not a table is a finding, not a crash") {
    const ProcessResult r = run_moetune("check " + quoted_fixture("binary_nul.csv") + " " + quoted_fixture("zero_bytes.csv"));
    CHECK(r.exit_code == 1);
    CHECK(r.out.find(":2: error: binary content: a NUL byte [not-a-table]") != std::string::npos);
    CHECK(r.out.find(":1: error: the file is empty (no header, no rows) [empty-file]") != std::string::npos);
}
