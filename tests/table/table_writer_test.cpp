#include "support/catch.hpp"

#include "table/table_reader.h"
#include "table/table_writer.h"
#include "table_fixtures.h"

using namespace moetune::table;
using moetune::test::read_text;
using moetune::test::table_fixture;

TEST_CASE("writer: fields are quoted only when they must be") {
    CHECK(format_csv_record({"a", "", "c"}) == "a,,c\n");
    CHECK(format_csv_record({"a,b", "say \"hi\"", "two\nlines", "cr\r"}) ==
          "\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr\r\"\n");
}

TEST_CASE("writer: a plain AITER file is rewritten byte for byte") {
    for (const char* name : {"clean_tuned.csv", "legacy_no_gfx.csv", "true_false_null.csv", "clean_untuned.csv"}) {
        INFO(name);
        CHECK(format_table(read_table(table_fixture(name))) == read_text(table_fixture(name)));
    }
}

TEST_CASE("writer: reading and writing loses no row and no value") {
    for (const char* name : {"bom_crlf.csv", "quoted_fields.csv", "ragged_rows.csv", "extra_fields.csv",
                             "shuffled_columns.csv", "blank_timing.csv", "header_only.csv", "xbf16_flat_no_gfx.csv"}) {
        INFO(name);
        const Table original = read_table(table_fixture(name));
        const Table again = parse_table(format_table(original), original.file);
        CHECK(again.columns == original.columns);
        REQUIRE(again.rows.size() == original.rows.size());
        for (std::size_t i = 0; i < original.rows.size(); ++i) CHECK(again.rows[i].cells == original.rows[i].cells);
    }
}

TEST_CASE("writer: output is LF without BOM, short rows come out padded") {
    const std::string bom_crlf = format_table(read_table(table_fixture("bom_crlf.csv")));
    CHECK(bom_crlf.substr(0, 4) == "gfx,");
    CHECK(bom_crlf.find('\r') == std::string::npos);

    const std::string ragged = format_table(read_table(table_fixture("ragged_rows.csv")));
    const Table again = parse_table(ragged, "ragged");
    for (const TableRow& r : again.rows) CHECK(r.field_count == 29);
}
