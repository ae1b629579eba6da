#include "support/catch.hpp"

#include "table/schema.h"
#include "table/table_reader.h"
#include "table_fixtures.h"

using namespace moetune::table;
using moetune::test::table_fixture;

namespace {

TableReadError read_error(const std::string& name) {
    try {
        read_table(table_fixture(name));
    } catch (const TableReadError& e) {
        return e;
    }
    FAIL("expected a TableReadError for " << name);
    throw;
}

}  // namespace

TEST_CASE("reader: every tuned header generation, by column name") {
    struct Case {
        const char* file;
        std::size_t columns;
        bool has_gfx;
    };
    for (const Case& c : {Case{"clean_tuned.csv", 28, true}, Case{"legacy_no_gfx.csv", 26, false},
                          Case{"xbf16_flat_no_gfx.csv", 28, false}, Case{"shuffled_columns.csv", 29, true}}) {
        INFO(c.file);
        const Table t = read_table(table_fixture(c.file));
        CHECK(t.kind() == TableKind::tuned);
        CHECK(t.columns.size() == c.columns);
        CHECK(t.has_column(col::gfx) == c.has_gfx);
        REQUIRE_FALSE(t.rows.empty());
        CHECK(t.cell(t.rows[0], col::token) == "1");
        CHECK(t.cell(t.rows[0], col::cu_num) == "256");
    }
    // gfx after run_1stage, xbf16 after bw: found by name all the same.
    const Table shuffled = read_table(table_fixture("shuffled_columns.csv"));
    CHECK(shuffled.cell(shuffled.rows[0], col::gfx) == "gfx950");
    CHECK(shuffled.cell(shuffled.rows[0], col::ksplit) == "-1");
}

TEST_CASE("reader: both untuned forms") {
    const Table plain = read_table(table_fixture("clean_untuned.csv"));
    CHECK(plain.kind() == TableKind::untuned);
    CHECK(plain.columns.size() == 12);
    CHECK(plain.rows.size() == 4);
    const Table gfx_first = read_table(table_fixture("untuned_gfx_first.csv"));
    CHECK(gfx_first.kind() == TableKind::untuned);
    CHECK(gfx_first.columns.size() == 14);
    CHECK(gfx_first.cell(gfx_first.rows[1], col::act_type) == "ActivationType.Situv2");
}

TEST_CASE("reader: a UTF-8 BOM and CRLF line ends leave no trace in names or cells") {
    const Table t = read_table(table_fixture("bom_crlf.csv"));
    CHECK(t.columns.front() == "gfx");
    CHECK(t.columns.back() == "bw");
    REQUIRE(t.rows.size() == 2);
    CHECK(t.rows[1].line == 3);
    CHECK(t.cell(t.rows[1], col::bw) == "172967.7");
}

TEST_CASE("reader: quoted fields are unquoted") {
    const Table t = read_table(table_fixture("quoted_fields.csv"));
    CHECK(t.columns.front() == "gfx");
    CHECK(t.cell(t.rows[0], col::gfx) == "gfx950");
    CHECK(t.cell(t.rows[0], col::tag) == "tuned by \"moetune\", run 3");
}

TEST_CASE("reader: True/False, Null and float noise are kept as written") {
    const Table t = read_table(table_fixture("true_false_null.csv"));
    const TableRow& r = t.rows.at(0);
    CHECK(t.cell(r, col::us) == "131.81310000000002");
    CHECK(t.cell(r, col::use_g1u1) == "True");
    CHECK(t.cell(r, col::kernel_name2) == "Null");
    CHECK(t.cell(r, col::err1) == "0.00%");
}

TEST_CASE("reader: ragged rows are padded, extra fields kept") {
    const Table ragged = read_table(table_fixture("ragged_rows.csv"));
    REQUIRE(ragged.rows.size() == 3);
    CHECK(ragged.rows[0].field_count == 29);
    CHECK(ragged.rows[1].field_count == 28);
    CHECK(ragged.rows[1].cells.size() == 29);
    CHECK(ragged.rows[1].cells.back().empty());
    CHECK(is_short_row(ragged, ragged.rows[2]));

    const Table extra = read_table(table_fixture("extra_fields.csv"));
    CHECK(has_extra_fields(extra, extra.rows[1]));
    CHECK(extra.rows[1].cells.size() == 29);
    CHECK(extra.rows[1].cells.back() == "surplus");
}

TEST_CASE("reader: a header-only file is a table without rows") {
    const Table t = read_table(table_fixture("header_only.csv"));
    CHECK(t.columns.size() == 28);
    CHECK(t.rows.empty());
}

TEST_CASE("reader: what is not a table says why and where") {
    struct Case {
        const char* file;
        TableReadError::Reason reason;
        std::size_t line;
    };
    using R = TableReadError::Reason;
    for (const Case& c : {Case{"binary_nul.csv", R::not_a_table, 2}, Case{"invalid_utf8.csv", R::not_a_table, 3},
                          Case{"unterminated_quote.csv", R::not_a_table, 3}, Case{"not_a_table.csv", R::not_a_table, 1},
                          Case{"zero_bytes.csv", R::empty_file, 1}}) {
        INFO(c.file);
        const TableReadError e = read_error(c.file);
        CHECK(e.reason() == c.reason);
        CHECK(e.line() == c.line);
        CHECK(e.file() == table_fixture(c.file));
    }
}

TEST_CASE("reader: a missing file or a directory cannot be opened") {
    CHECK(read_error("no_such_file.csv").reason() == TableReadError::Reason::cannot_open);
    try {
        read_table(moetune::test::fixtures_dir() / "tables");
        FAIL("a directory is not a table");
    } catch (const TableReadError& e) {
        CHECK(e.reason() == TableReadError::Reason::cannot_open);
    }
}
