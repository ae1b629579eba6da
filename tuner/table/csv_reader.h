#pragma once
// Splits CSV text into records the way pandas' C parser reads AITER's files: comma separated,
// RFC 4180 quotes ("" inside quotes is one quote, quoted fields may span lines), \n, \r\n or \r
// line ends, empty lines skipped. Each record keeps the line it starts on for messages.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace moetune::table {

struct CsvRecord {
    std::size_t line = 0;  // 1-based physical line where the record starts
    std::vector<std::string> fields;
};

// `file` only names the input in the InputError thrown for an unterminated quoted field.
std::vector<CsvRecord> parse_csv(std::string_view text, const std::string& file);

}  // namespace moetune::table
