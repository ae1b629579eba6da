#include "table/cell_value.h"

#include <charconv>
#include <cmath>

namespace moetune::table {
namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

// from_chars rejects a leading '+', Python's float()/int() accept it.
std::string_view without_plus(std::string_view s) {
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    return s;
}

}  // namespace

bool is_blank(std::string_view text) { return trim(text).empty(); }

std::optional<double> parse_number(std::string_view text) {
    text = without_plus(trim(text));
    if (text.empty()) return std::nullopt;
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    // inf/nan parse, but a table cell with them records a failed measurement, not a value.
    if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
    return value;
}

std::optional<long long> parse_integer(std::string_view text) {
    const std::string_view t = without_plus(trim(text));
    long long value = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
    if (!t.empty() && ec == std::errc{} && end == t.data() + t.size()) return value;
    const std::optional<double> d = parse_number(text);
    constexpr double kExactLimit = 9007199254740992.0;  // 2^53: beyond it a double is no exact integer
    if (!d || std::floor(*d) != *d || std::fabs(*d) > kExactLimit) return std::nullopt;
    return static_cast<long long>(*d);
}

std::optional<bool> parse_flag(std::string_view text) {
    text = trim(text);
    if (text == "True" || text == "true" || text == "TRUE") return true;
    if (text == "False" || text == "false" || text == "FALSE") return false;
    const std::optional<double> d = parse_number(text);
    if (d && *d == 1.0) return true;
    if (d && *d == 0.0) return false;
    return std::nullopt;
}

std::optional<double> parse_error_ratio(std::string_view text) {
    text = trim(text);
    if (!text.empty() && text.back() == '%') {
        const std::optional<double> percent = parse_number(text.substr(0, text.size() - 1));
        if (!percent) return std::nullopt;
        return *percent / 100.0;
    }
    return parse_number(text);
}

}  // namespace moetune::table
