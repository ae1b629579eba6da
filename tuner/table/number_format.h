#pragma once
// AITER's number formatting in tuned tables, so moetune's rows are byte-identical to the tuner's:
// us/us1/us2 are round(x, 4) and tflops/bw round(x, 2), written by Python's str() (shortest text
// that reads back: 14.296, 0.0, 202009.64); err1/err2 are f"{err:.1%}" ("0.0%", "5.3%").
#include <string>

namespace moetune::table {

// Python's str(round(value, decimals)) for the magnitudes found in tables (below 1e16).
std::string format_rounded(double value, int decimals);
// Python's f"{ratio:.1%}".
std::string format_err_percent(double ratio);

}  // namespace moetune::table
