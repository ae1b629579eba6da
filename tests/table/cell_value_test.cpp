#include "support/catch.hpp"

#include "table/cell_value.h"

using namespace moetune::table;

TEST_CASE("cell: integers, including pandas' float spelling of an int column") {
    CHECK(parse_integer("32") == 32);
    CHECK(parse_integer("-1") == -1);
    CHECK(parse_integer("+3") == 3);
    CHECK(parse_integer(" 7 ") == 7);
    CHECK(parse_integer("32.0") == 32);
    CHECK_FALSE(parse_integer("1.5"));
    CHECK_FALSE(parse_integer("abc"));
    CHECK_FALSE(parse_integer(""));
    CHECK_FALSE(parse_integer("12abc"));
}

TEST_CASE("cell: numbers are finite decimals") {
    CHECK(parse_number("131.81310000000002") == 131.81310000000002);
    CHECK(parse_number("1e3") == 1000.0);
    CHECK(parse_number("0.0") == 0.0);
    CHECK_FALSE(parse_number("inf"));
    CHECK_FALSE(parse_number("nan"));
    CHECK_FALSE(parse_number("fast"));
    CHECK_FALSE(parse_number(""));
}

TEST_CASE("cell: flags accept 1/0 and True/False") {
    CHECK(parse_flag("1") == true);
    CHECK(parse_flag("0") == false);
    CHECK(parse_flag("True") == true);
    CHECK(parse_flag("False") == false);
    CHECK(parse_flag("true") == true);
    CHECK(parse_flag("1.0") == true);
    CHECK_FALSE(parse_flag("yes"));
    CHECK_FALSE(parse_flag("2"));
    CHECK_FALSE(parse_flag(""));
}

TEST_CASE("cell: error ratios as percent or bare") {
    CHECK(parse_error_ratio("5.3%") == 0.053);
    CHECK(parse_error_ratio("0.00%") == 0.0);
    CHECK(parse_error_ratio("0.0") == 0.0);
    CHECK_FALSE(parse_error_ratio("abc"));
    CHECK_FALSE(parse_error_ratio("%"));
}

TEST_CASE("cell: blank is empty or only spaces") {
    CHECK(is_blank(""));
    CHECK(is_blank("  "));
    CHECK_FALSE(is_blank("0"));
}
