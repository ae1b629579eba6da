#pragma once
// Typed reading of one raw cell, accepting what pandas accepts in AITER's files: surrounding
// blanks, "32.0" for an integer (pandas writes an int column that had a blank cell as floats),
// True/False for 1/0, "5.3%" or a bare ratio for an error. Each returns nullopt when the text is
// not such a value; callers decide whether that is a finding or an InputError.
#include <optional>
#include <string_view>

namespace moetune::table {

std::optional<double> parse_number(std::string_view text);      // finite decimal or scientific
std::optional<long long> parse_integer(std::string_view text);  // "32", "-1", "32.0"
std::optional<bool> parse_flag(std::string_view text);          // 1/0, 1.0/0.0, True/False/true/false/TRUE/FALSE
// err1/err2 as a ratio: "5.3%" -> 0.053; older rows write a bare ratio ("0.0").
std::optional<double> parse_error_ratio(std::string_view text);

bool is_blank(std::string_view text);  // empty or only spaces/tabs: pandas reads NaN

}  // namespace moetune::table
