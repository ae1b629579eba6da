#pragma once
// One problem `moetune check` reports. Every code has one fixed severity: errors are what makes
// AITER fail to load or silently pick a different row than intended; warnings are legal but
// suspicious (rows that are never used, guesses AITER has to make). docs/table-format.md lists them.
#include <cstddef>
#include <string>
#include <string_view>

namespace moetune::table {

enum class Severity { error, warning };

namespace code {
// errors
inline constexpr std::string_view missing_column = "missing-column";
inline constexpr std::string_view bad_value = "bad-value";
inline constexpr std::string_view duplicate_key = "duplicate-key";
inline constexpr std::string_view cross_file_duplicate = "cross-file-duplicate";
inline constexpr std::string_view empty_file = "empty-file";
inline constexpr std::string_view not_a_table = "not-a-table";
inline constexpr std::string_view bad_moetune_kernel = "bad-moetune-kernel";
// warnings
inline constexpr std::string_view unreachable_bucket = "unreachable-bucket";
inline constexpr std::string_view act_type_twin = "act-type-twin";
inline constexpr std::string_view ragged_row = "ragged-row";
inline constexpr std::string_view blank_timing = "blank-timing";
inline constexpr std::string_view gfx_inferred = "gfx-inferred";
inline constexpr std::string_view unknown_kernel_name = "unknown-kernel-name";
}  // namespace code

struct Finding {
    Severity severity = Severity::error;
    std::string_view code;  // one of code::*
    std::string file;
    std::size_t line = 1;  // 1-based; findings about the file as a whole name its header line
    std::string message;
};

// A finding with the severity its code carries.
Finding make_finding(std::string_view code, const std::string& file, std::size_t line, std::string message);
std::string_view severity_name(Severity severity);  // "error" / "warning"

}  // namespace moetune::table
