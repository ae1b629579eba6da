#include "table/number_format.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>

namespace moetune::table {

std::string format_rounded(double value, int decimals) {
    // round(x, n) rounds the exact binary value to n decimals, ties to even; glibc's %.*f does the same.
    char fixed[64];
    std::snprintf(fixed, sizeof fixed, "%.*f", decimals, value);
    const double rounded = std::strtod(fixed, nullptr);
    // str(float) is the shortest text that reads back as the same double, with at least ".0".
    char shortest[64];
    const auto [end, ec] = std::to_chars(shortest, shortest + sizeof shortest, rounded, std::chars_format::fixed);
    std::string text(shortest, ec == std::errc{} ? end : shortest);
    if (text.find('.') == std::string::npos) text += ".0";
    return text;
}

std::string format_err_percent(double ratio) {
    // Python's '%' presentation multiplies by 100 in double precision, then formats as 'f'.
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f%%", ratio * 100.0);
    return buf;
}

}  // namespace moetune::table
