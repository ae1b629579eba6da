#include "support/catch.hpp"

#include "common/input_error.h"
#include "table/csv_reader.h"

using moetune::InputError;
using moetune::table::parse_csv;

using Fields = std::vector<std::string>;

TEST_CASE("csv: records, fields and the line each record starts on") {
    const auto r = parse_csv("a,b,c\n1,,3\n", "t.csv");
    REQUIRE(r.size() == 2);
    CHECK(r[0].fields == Fields{"a", "b", "c"});
    CHECK(r[1].fields == Fields{"1", "", "3"});
    CHECK(r[1].line == 2);
}

TEST_CASE("csv: CRLF, lone CR and a missing final line end all end a record") {
    const auto r = parse_csv("a,b\r\n1,2\r3,4", "t.csv");
    REQUIRE(r.size() == 3);
    CHECK(r[0].fields == Fields{"a", "b"});
    CHECK(r[1].fields == Fields{"1", "2"});
    CHECK(r[2].fields == Fields{"3", "4"});
    CHECK(r[2].line == 3);
}

TEST_CASE("csv: empty lines are skipped but still counted") {
    const auto r = parse_csv("a\n\n\r\nb\n", "t.csv");
    REQUIRE(r.size() == 2);
    CHECK(r[1].fields == Fields{"b"});
    CHECK(r[1].line == 4);
}

TEST_CASE("csv: lines of spaces and tabs only are skipped as pandas skips them, a space in a field is kept") {
    const auto r = parse_csv("a,b\n  \n\t\r\n \t \n1, 2\n \n \t", "t.csv");
    REQUIRE(r.size() == 2);
    CHECK(r[1].fields == Fields{"1", " 2"});
    CHECK(r[1].line == 5);
    CHECK(parse_csv(" ,\n", "t.csv")[0].fields == Fields{" ", ""});  // a delimiter: a record
}

TEST_CASE("csv: quoted fields keep commas, doubled quotes and line breaks") {
    const auto r = parse_csv("x,y\n\"a,b\",\"say \"\"hi\"\"\"\n\"two\nlines\",z\nlast,row\n", "t.csv");
    REQUIRE(r.size() == 4);
    CHECK(r[1].fields == Fields{"a,b", "say \"hi\""});
    CHECK(r[2].fields == Fields{"two\nlines", "z"});
    CHECK(r[3].line == 5);  // the quoted line break moved the next record down a line
}

TEST_CASE("csv: text after a closing quote stays part of the field, as in pandas") {
    CHECK(parse_csv("\"ab\"cd,e\n", "t.csv")[0].fields == Fields{"abcd", "e"});
}

TEST_CASE("csv: an unterminated quote is an error naming the line it opened on") {
    try {
        parse_csv("a,b\n1,\"open\n2,3\n", "t.csv");
        FAIL("expected an InputError");
    } catch (const InputError& e) {
        CHECK(e.file() == "t.csv");
        CHECK(e.line() == 2);
    }
}
