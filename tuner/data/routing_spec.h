#pragma once
// The value of `--routing`: random | balanced | skewed[:s] | file:PATH
// (docs/synthetic-data-and-routing.md describes each generator and the file format).
#include <string>

namespace moetune::data {

struct RoutingSpec {
    enum class Kind { random, balanced, skewed, file };
    static constexpr double kDefaultSkew = 1.2;

    Kind kind = Kind::random;
    double skew = kDefaultSkew;  // Zipf exponent of `skewed`
    std::string path;            // routing file of `file`
};

// Throws InputError naming the flag value when it is not one of the forms above.
RoutingSpec parse_routing_spec(std::string text);
// The canonical flag value, e.g. "skewed:1.5" (parse_routing_spec(to_string(s)) == s).
std::string to_string(const RoutingSpec& spec);
// Whether another seed gives another routing (random, skewed): only those can be rotated when timing.
bool varies_with_seed(const RoutingSpec& spec);

}  // namespace moetune::data
