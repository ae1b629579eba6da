#include "cli/number_checks.h"

#include <charconv>
#include <functional>
#include <optional>
#include <string>

namespace moetune::cli {
namespace {

std::optional<double> number_of(const std::string& text) {
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return value;
}

// The shortest spelling that reads back: 0.05, 1, 16777215.
std::string spelled(double value) {
    char text[32];
    const auto [end, ec] = std::to_chars(text, text + sizeof text, value);
    return std::string(text, ec == std::errc{} ? end : text);
}

// A validator that returns CLI11's "" for a good value and the message otherwise; a value that is
// no number is left to the option's own conversion, whose message names it.
CLI::Validator check_with(std::string description, std::function<std::string(double)> why_not) {
    return CLI::Validator(
        [why_not = std::move(why_not)](std::string& text) -> std::string {
            const std::optional<double> value = number_of(text);
            if (!value) return {};
            const std::string why = why_not(*value);
            return why.empty() ? why : why + ", got " + text;
        },
        std::move(description));
}

}  // namespace

CLI::Validator positive_number() {
    return check_with("POSITIVE", [](double v) { return v > 0 ? "" : std::string("must be greater than 0"); });
}

CLI::Validator non_negative_number() {
    return check_with("NONNEGATIVE", [](double v) { return v >= 0 ? "" : std::string("must be 0 or more"); });
}

CLI::Validator number_in(double lo, double hi) {
    const std::string range = spelled(lo) + ".." + spelled(hi);
    return check_with("in " + range,
                      [lo, hi, range](double v) { return lo <= v && v <= hi ? "" : "must lie in " + range; });
}

}  // namespace moetune::cli
