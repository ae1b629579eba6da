#pragma once
// Reads any generation of AITER fused-MoE table (legacy without gfx, the xbf16/flat variants,
// gfx-first, any column order) and both untuned forms, tolerating what pandas tolerates: a UTF-8
// BOM, CRLF, quoted fields, ragged rows, empty lines.
#include <filesystem>
#include <string>
#include <string_view>

#include "common/input_error.h"
#include "table/table.h"

namespace moetune::table {

// Why a file could not become a Table. check turns not_a_table/empty_file into findings; every
// command exits 2 for cannot_open.
class TableReadError : public InputError {
public:
    enum class Reason { cannot_open, not_a_table, empty_file };
    TableReadError(Reason reason, std::string file, std::size_t line, const std::string& message)
        : InputError(std::move(file), line, message), reason_(reason), message_(message) {}
    Reason reason() const { return reason_; }
    const std::string& message() const { return message_; }  // without the "FILE:LINE: " prefix

private:
    Reason reason_;
    std::string message_;
};

// `path` is also the name used in messages. A header-only file gives a Table without rows.
Table read_table(const std::filesystem::path& path);
Table parse_table(std::string_view content, const std::string& file);

}  // namespace moetune::table
