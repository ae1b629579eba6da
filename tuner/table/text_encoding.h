#pragma once
// AITER tables are UTF-8 text. A file with a NUL byte or invalid UTF-8 is something else (a
// spreadsheet, a gzip, a file saved as UTF-16) and is reported as not-a-table instead of being
// parsed into garbage rows.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace moetune::table {

struct BinaryContent {
    std::size_t line = 0;  // 1-based line of the first offending byte
    std::string what;      // "a NUL byte" / "invalid UTF-8 (byte 0xff)"
};

std::optional<BinaryContent> find_binary_content(std::string_view text);

// A UTF-8 byte-order mark at the start (Excel writes one); pandas ignores it, so do we.
std::string_view strip_utf8_bom(std::string_view text);

}  // namespace moetune::table
