#include "support/catch.hpp"

#include <optional>
#include <string>
#include <vector>

#include "table/check.h"
#include "table/table_reader.h"
#include "table_fixtures.h"

using namespace moetune::table;
using moetune::test::codes_and_lines;
using moetune::test::CodeLines;
using moetune::test::table_fixture;

namespace {

CheckResult check(std::initializer_list<const char*> names) {
    std::vector<std::string> paths;
    for (const char* n : names) paths.push_back(table_fixture(n));
    return check_files(paths);
}

CodeLines findings_of(std::initializer_list<const char*> names) { return codes_and_lines(check(names).findings); }

Finding only_finding(const CheckResult& r) {
    REQUIRE(r.findings.size() == 1);
    return r.findings.front();
}

}  // namespace

TEST_CASE("check: clean files of every generation and encoding have no findings") {
    for (const char* name : {"clean_tuned.csv", "clean_untuned.csv", "untuned_gfx_first.csv", "bom_crlf.csv",
                             "quoted_fields.csv", "true_false_null.csv", "shuffled_columns.csv"}) {
        INFO(name);
        const CheckResult r = check({name});
        CHECK(r.findings.empty());
        CHECK(r.errors == 0);
        CHECK(r.warnings == 0);
    }
}

TEST_CASE("check: missing-column") {
    CHECK(findings_of({"missing_column.csv"}) == CodeLines{{"missing-column", 1}});
    CHECK(only_finding(check({"missing_column.csv"})).message.find("no expert column") == 0);
}

TEST_CASE("check: bad-value for numbers, sizes, enum strings and flags") {
    CodeLines expected;
    for (std::size_t line = 2; line <= 9; ++line) expected.push_back({"bad-value", line});
    const CheckResult r = check({"bad_values.csv"});
    CHECK(codes_and_lines(r.findings) == expected);
    CHECK(r.errors == 8);
    CHECK(r.findings[0].message == "token '0' is not a whole number >= 1");
    CHECK(r.findings[2].message.find("torch.bfloat17") != std::string::npos);
    CHECK(r.findings[3].message.find("ActivationType.Relu") != std::string::npos);
    CHECK(r.findings[4].message.find("us 'fast'") == 0);
}

TEST_CASE("check: NVIDIA rows (gfx column sm_90, as moetune stamps them) are valid, other names are not") {
    const CheckResult r = check({"nvidia_arch.csv"});
    CHECK(codes_and_lines(r.findings) == CodeLines{{"bad-value", 3}, {"bad-value", 4}});
    CHECK(r.findings[0].message.find("'sm_9x'") != std::string::npos);
}

TEST_CASE("check: duplicate-key in one file names both rows and the one AITER keeps") {
    const Finding f = only_finding(check({"dup_key_in_file.csv"}));
    CHECK(f.code == "duplicate-key");
    CHECK(f.severity == Severity::error);
    CHECK(f.line == 4);
    CHECK(f.message.find("same key as line 2") == 0);
    CHECK(f.message.find("keeps line 4 (lowest us 18.5)") != std::string::npos);
    CHECK(f.message.find("the first, line 2, wins the lookup") != std::string::npos);
}

TEST_CASE("check: cross-file-duplicate across header generations, lowest us kept, ties to the earlier file") {
    const CheckResult r = check({"dup_key_a.csv", "dup_key_b.csv"});
    CHECK(codes_and_lines(r.findings) ==
          CodeLines{{"gfx-inferred", 1}, {"cross-file-duplicate", 2}, {"cross-file-duplicate", 3}});
    const std::string a = table_fixture("dup_key_a.csv");
    CHECK(r.findings[1].file == table_fixture("dup_key_b.csv"));
    CHECK(r.findings[1].message.find("same key as " + a + ":3") == 0);
    CHECK(r.findings[1].message.find("keeps " + table_fixture("dup_key_b.csv") + ":2 (lowest us 22.0)") !=
          std::string::npos);
    CHECK(r.findings[2].message.find("keeps " + a + ":2 (lowest us 20.9291, the earliest of equal rows)") !=
          std::string::npos);
}

TEST_CASE("check: a key repeated in one file and in another is one finding per extra row") {
    const CheckResult r = check({"dup_key_in_file.csv", "clean_tuned.csv"});
    CHECK(codes_and_lines(r.findings) ==
          CodeLines{{"duplicate-key", 4}, {"cross-file-duplicate", 2}, {"cross-file-duplicate", 3}});
    CHECK(r.findings[0].message.find("keeps line 4") != std::string::npos);
    // With several files there is no "used alone" case to explain.
    CHECK(r.findings[0].message.find("used alone") == std::string::npos);
    CHECK(r.findings[1].message.find("keeps " + table_fixture("dup_key_in_file.csv") + ":4") != std::string::npos);
}

TEST_CASE("check: empty-file and not-a-table") {
    CHECK(findings_of({"header_only.csv"}) == CodeLines{{"empty-file", 1}});
    CHECK(findings_of({"zero_bytes.csv"}) == CodeLines{{"empty-file", 1}});
    CHECK(findings_of({"binary_nul.csv"}) == CodeLines{{"not-a-table", 2}});
    CHECK(findings_of({"invalid_utf8.csv"}) == CodeLines{{"not-a-table", 3}});
    CHECK(findings_of({"not_a_table.csv"}) == CodeLines{{"not-a-table", 1}});
    CHECK(findings_of({"unterminated_quote.csv"}) == CodeLines{{"not-a-table", 3}});
    // Extra fields: pandas refuses the whole file.
    CHECK(findings_of({"extra_fields.csv"}) == CodeLines{{"not-a-table", 3}});
}

TEST_CASE("check: unreachable-bucket") {
    const CheckResult r = check({"unreachable_bucket.csv"});
    CHECK(codes_and_lines(r.findings) ==
          CodeLines{{"unreachable-bucket", 2}, {"unreachable-bucket", 3}, {"unreachable-bucket", 6}});
    CHECK(r.findings[0].message.find("looks up 128") != std::string::npos);
    CHECK(r.findings[2].message.find("looks up 32768") != std::string::npos);
    CHECK(r.warnings == 3);
    CHECK(r.errors == 0);
}

TEST_CASE("check: act-type-twin in a file, across the merged set, and in untuned files") {
    CHECK(findings_of({"act_type_twin.csv"}) == CodeLines{{"act-type-twin", 3}});
    const CheckResult across = check({"act_type_twin.csv", "act_type_twin_other_file.csv"});
    CHECK(codes_and_lines(across.findings) == CodeLines{{"act-type-twin", 3}, {"act-type-twin", 2}});
    CHECK(across.findings[1].message.find("differs from " + table_fixture("act_type_twin.csv") + ":2") == 0);
    CHECK(findings_of({"act_type_twin_untuned.csv"}) == CodeLines{{"act-type-twin", 3}});
}

TEST_CASE("check: act-type twins of a merged set are judged after the merge drops its losers") {
    // dup_key_in_file.csv line 2 loses to its line 4 (lower us), so line 4 is what the lookup finds first.
    const CheckResult r = check({"dup_key_in_file.csv", "act_type_twin.csv"});
    CHECK(codes_and_lines(r.findings) == CodeLines{{"duplicate-key", 4},
                                                   {"cross-file-duplicate", 2},
                                                   {"act-type-twin", 3}});
    CHECK(r.findings[2].message.find("differs from " + table_fixture("dup_key_in_file.csv") + ":4 only in act_type") ==
          0);
}

TEST_CASE("check: ragged-row warns once and does not judge shifted cells") {
    const CheckResult r = check({"ragged_rows.csv"});
    CHECK(codes_and_lines(r.findings) == CodeLines{{"ragged-row", 3}, {"ragged-row", 4}});
    CHECK(r.findings[0].message.find("28 fields under a 29-column header") == 0);
}

TEST_CASE("check: blank-timing") {
    const Finding f = only_finding(check({"blank_timing.csv"}));
    CHECK(f.code == "blank-timing");
    CHECK(f.line == 2);
    CHECK(f.message.find("blank us1, err1, us2, err2, us") == 0);
}

TEST_CASE("check: gfx-inferred for a file without gfx and for a blank gfx cell") {
    const Finding legacy = only_finding(check({"legacy_no_gfx.csv"}));
    CHECK(legacy.code == "gfx-inferred");
    CHECK(legacy.line == 1);
    CHECK(legacy.message.find("cu_num 256 -> gfx950, cu_num 80 -> gfx942, cu_num 128 has no inferred arch") !=
          std::string::npos);
    const CheckResult blank = check({"blank_gfx.csv"});
    CHECK(codes_and_lines(blank.findings) == CodeLines{{"gfx-inferred", 2}, {"gfx-inferred", 3}});
    CHECK(blank.findings[1].message.find("cu_num 128 has no inferred arch") != std::string::npos);
}

TEST_CASE("check: unknown-kernel-name, while every known family passes") {
    const CheckResult r = check({"unknown_kernel.csv"});
    CHECK(codes_and_lines(r.findings) ==
          CodeLines{{"unknown-kernel-name", 2}, {"unknown-kernel-name", 3}, {"unknown-kernel-name", 4}});
    CHECK(r.findings[0].message.find("kernelName1 'my_custom_kernel'") == 0);
    CHECK(r.findings[1].message.find("kernelName2 is empty on a 2-stage row") == 0);
}

TEST_CASE("check: bad-moetune-kernel, a moetune kernel beside another family's; with libmoetune's rule, every slot") {
    // Without the rule (this library alone) only the pairing is judged.
    CHECK(findings_of({"bad_moetune_kernels.csv"}) == CodeLines{{"bad-moetune-kernel", 6}});
    // The rule sees each moetune slot's stage, name and block_m cell; what it says ends the message.
    std::vector<std::string> asked;
    const MoetuneKernelRule rule = [&](int stage, std::string_view name, std::string_view block_m) {
        asked.push_back(std::to_string(stage) + " " + std::string(name) + " " + std::string(block_m));
        return name.find("_fp8") != std::string_view::npos ? std::optional<std::string>("is refused") : std::nullopt;
    };
    const CheckResult r = check_files({table_fixture("bad_moetune_kernels.csv")}, rule);
    CHECK(codes_and_lines(r.findings) == CodeLines{{"bad-moetune-kernel", 3}, {"bad-moetune-kernel", 6}});
    CHECK(r.errors == 2);
    CHECK(r.findings[0].message ==
          "kernelName1 'moetune_moe1_afp8_wfp4_bf16_t32x64x256_fp8' is refused: libmoetune will not load this table");
    REQUIRE(asked.size() == 9);  // both slots of lines 2-5, stage 1 of line 6
    CHECK(asked[0] == "1 moetune_moe1_afp8_wfp4_bf16_t32x64x256_gui 32");
    CHECK(asked[7] == "2 moetune_moe2_afp8_wfp4_bf16_t32x256x256_atomic 64");
    CHECK(asked[8] == "1 moetune_moe1_afp8_wfp4_bf16_t32x64x256_gui 32");
}

TEST_CASE("check: findings are sorted by file order, then line; counts add up") {
    const CheckResult r = check({"unreachable_bucket.csv", "bad_values.csv", "header_only.csv"});
    REQUIRE(r.findings.size() == 12);
    CHECK(r.findings.front().file == table_fixture("unreachable_bucket.csv"));
    CHECK(r.findings[3].file == table_fixture("bad_values.csv"));
    CHECK(r.findings[3].line == 2);
    CHECK(r.findings.back().file == table_fixture("header_only.csv"));
    CHECK(r.errors == 9);
    CHECK(r.warnings == 3);
    CHECK(r.files.size() == 3);
}

TEST_CASE("check: a file that cannot be opened is not a finding but an error of the call") {
    try {
        check({"clean_tuned.csv", "no_such_file.csv"});
        FAIL("expected a TableReadError");
    } catch (const TableReadError& e) {
        CHECK(e.reason() == TableReadError::Reason::cannot_open);
    }
}
