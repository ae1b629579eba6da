// Every real AITER table in ../shared/aiter-tables, read in place (this binary is skipped when the
// directory is absent): nothing is lost reading and writing, every row parses typed, and the
// known quirks of the shipped files are seen where the reference says they are.
#include "support/catch.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include "table/cell_value.h"
#include "table/check.h"
#include "table/schema.h"
#include "table/table_reader.h"
#include "table/table_shape.h"
#include "table/table_writer.h"
#include "table/tuned_row.h"
#include "support/test_env.h"

using namespace moetune::table;
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> shared_tables() {
    std::vector<fs::path> paths;
    for (const auto& e : fs::directory_iterator(moetune::test::shared_dir() / "aiter-tables"))
        if (e.path().extension() == ".csv") paths.push_back(e.path());
    std::sort(paths.begin(), paths.end());
    return paths;
}

// Two shipped files lack the final line end; the writer always adds it.
std::string with_final_newline(const std::string& text) {
    return !text.empty() && text.back() != '\n' ? text + '\n' : text;
}

std::size_t count_lines(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

std::size_t count_rows(const Table& t, bool (*pred)(const Table&, const TableRow&)) {
    return std::count_if(t.rows.begin(), t.rows.end(), [&](const TableRow& r) { return pred(t, r); });
}

}  // namespace

TEST_CASE("shared tables: every file reads, and rewriting it loses no row and no value") {
    const auto paths = shared_tables();
    REQUIRE(paths.size() >= 11);
    for (const fs::path& p : paths) {
        INFO(p.filename().string());
        const std::string text = with_final_newline(moetune::test::read_text(p));
        const Table t = read_table(p);
        CHECK(t.rows.size() == count_lines(text) - 1);  // one record per line, no blank lines in these files

        const std::string written = format_table(t);
        const Table again = parse_table(written, t.file);
        CHECK(again.columns == t.columns);
        REQUIRE(again.rows.size() == t.rows.size());
        for (std::size_t i = 0; i < t.rows.size(); ++i) CHECK(again.rows[i].cells == t.rows[i].cells);
        // Files without ragged rows come back byte for byte.
        if (count_rows(t, is_short_row) == 0) CHECK(written == text);
    }
}

TEST_CASE("shared tables: typed parsing works on every row") {
    for (const fs::path& p : shared_tables()) {
        INFO(p.filename().string());
        const Table t = read_table(p);
        for (const TableRow& r : t.rows) {
            INFO("line " << r.line);
            const TableShape s = read_shape(t, r);  // throws on any bad key cell
            CHECK(s.token >= 1);
            if (t.kind() != TableKind::tuned) continue;
            CHECK(parse_integer(t.cell(r, col::cu_num)));
            // A ragged row's result cells may sit in the wrong column (the reference's dsv4 Opus rows).
            if (!is_short_row(t, r)) CHECK(read_tuned_row(t, r).us == *parse_number(t.cell(r, col::us)));
        }
    }
}

TEST_CASE("shared tables: the quirks the reference lists are where it says") {
    const fs::path dir = moetune::test::shared_dir() / "aiter-tables";
    const Table dsv4 = read_table(dir / "dsv4_fp8fp4_tuned_fmoe.csv");
    CHECK(count_rows(dsv4, is_short_row) == 8);
    const Table glm5 = read_table(dir / "glm5_fp4_tuned_fmoe.csv");
    CHECK(count_rows(glm5, is_short_row) == 11);

    std::map<std::string, std::size_t> tags;
    for (const char* name : {"gptoss_fp8fp4_tuned_fmoe.csv", "kimik3_a8w4_tuned_fmoe.csv"}) {
        const Table t = read_table(dir / name);
        for (const TableRow& r : t.rows) ++tags[std::string(t.cell(r, col::tag))];
    }
    CHECK(tags["flydsl_fallback"] == 14);
    CHECK(tags["exact-m4096-a"] == 1);

    const Table legacy = read_table(dir / "tuned_fmoe.csv");
    CHECK_FALSE(legacy.has_column(col::gfx));
    CHECK(legacy.columns.size() == 26);
}

TEST_CASE("shared tables: as AITER merges them (tuned_fmoe.csv first), no errors") {
    std::vector<std::string> tuned = {(moetune::test::shared_dir() / "aiter-tables" / "tuned_fmoe.csv").string()};
    for (const fs::path& p : shared_tables()) {
        const std::string name = p.filename().string();
        if (name != "tuned_fmoe.csv" && name.find("untuned") == std::string::npos) tuned.push_back(p.string());
    }
    const CheckResult set = check_files(tuned);
    CHECK(set.errors == 0);
    // The shipped defaults do carry warnings: 19 ragged rows, 3 legacy files without gfx, tokens 3 and 56.
    std::map<std::string, std::size_t> by_code;
    for (const Finding& f : set.findings) ++by_code[std::string(f.code)];
    CHECK(by_code["ragged-row"] == 19);
    CHECK(by_code["gfx-inferred"] == 3);
    CHECK(by_code["unreachable-bucket"] == 3);
}
