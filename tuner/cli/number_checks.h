#pragma once
// Bounds of numeric flags, with messages a user can read: CLI11's PositiveNumber and
// NonNegativeNumber print their upper bound as the 309 digits of DBL_MAX ("Value 0 not in range
// 0.000000 to 1797693134862315708..."), and Range prints doubles with six decimals.
#include <CLI/CLI.hpp>

namespace moetune::cli {

// > 0, e.g. --rounds.
CLI::Validator positive_number();
// >= 0, e.g. --gpu, --warmup.
CLI::Validator non_negative_number();
// lo..hi inclusive, bounds printed as written (e.g. --finalist-margin 0..1).
CLI::Validator number_in(double lo, double hi);

}  // namespace moetune::cli
