#include "table/finding.h"

#include <algorithm>
#include <array>

namespace moetune::table {

Finding make_finding(std::string_view c, const std::string& file, std::size_t line, std::string message) {
    static constexpr std::array<std::string_view, 7> kErrors = {
        code::missing_column, code::bad_value,   code::duplicate_key,      code::cross_file_duplicate,
        code::empty_file,     code::not_a_table, code::bad_moetune_kernel};
    const bool is_error = std::find(kErrors.begin(), kErrors.end(), c) != kErrors.end();
    return Finding{is_error ? Severity::error : Severity::warning, c, file, line, std::move(message)};
}

std::string_view severity_name(Severity severity) { return severity == Severity::error ? "error" : "warning"; }

}  // namespace moetune::table
