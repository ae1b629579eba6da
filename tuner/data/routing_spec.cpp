#include "data/routing_spec.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "common/input_error.h"

namespace moetune::data {
namespace {

[[noreturn]] void reject(const std::string& text, const std::string& why) {
    throw InputError("", 0, "invalid --routing value '" + text + "': " + why);
}

double parse_skew(const std::string& text, const std::string& number) {
    if (number.empty()) reject(text, "missing exponent after 'skewed:'");
    char* end = nullptr;
    errno = 0;
    const double s = std::strtod(number.c_str(), &end);
    if (end != number.c_str() + number.size() || errno == ERANGE || !std::isfinite(s))
        reject(text, "'" + number + "' is not a number");
    if (s < 0) reject(text, "the skew exponent must be >= 0");
    return s;
}

}  // namespace

RoutingSpec parse_routing_spec(std::string text) {
    RoutingSpec spec;
    if (text == "random") {
        spec.kind = RoutingSpec::Kind::random;
    } else if (text == "balanced") {
        spec.kind = RoutingSpec::Kind::balanced;
    } else if (text == "skewed") {
        spec.kind = RoutingSpec::Kind::skewed;
    } else if (text.starts_with("skewed:")) {
        spec.kind = RoutingSpec::Kind::skewed;
        spec.skew = parse_skew(text, text.substr(7));
    } else if (text.starts_with("file:")) {
        spec.kind = RoutingSpec::Kind::file;
        spec.path = text.substr(5);
        if (spec.path.empty()) reject(text, "missing path after 'file:'");
    } else {
        reject(text, "expected random, balanced, skewed[:s] or file:PATH");
    }
    return spec;
}

std::string to_string(const RoutingSpec& spec) {
    switch (spec.kind) {
    case RoutingSpec::Kind::random: return "random";
    case RoutingSpec::Kind::balanced: return "balanced";
    case RoutingSpec::Kind::skewed: {
        char number[32];
        const auto end = std::to_chars(number, number + sizeof number, spec.skew).ptr;  // shortest round trip
        return "skewed:" + std::string(number, end);
    }
    case RoutingSpec::Kind::file: return "file:" + spec.path;
    }
    return "?";
}

bool varies_with_seed(const RoutingSpec& spec) {
    return spec.kind == RoutingSpec::Kind::random || spec.kind == RoutingSpec::Kind::skewed;
}

}  // namespace moetune::data
