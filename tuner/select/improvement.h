#pragma once
// When a new measurement replaces a row that is already in the table: only when it is faster by a
// margin (AITER's --min_improvement_pct, default 3%). Timing noise between two runs is a few
// percent, so without the margin a retune would churn rows (and kernel names) for nothing.
#include <optional>

namespace moetune::select {

inline constexpr double kDefaultMinImprovementPct = 3.0;

// True when new_us < old_us * (1 - min_improvement_pct / 100). An existing row without a usable
// time (blank, zero, negative or NaN: hand-made rows, failed measurements) is always replaced,
// as AITER's --update_improved replaces shapes with no valid baseline.
bool replaces_existing(double new_us, std::optional<double> old_us, double min_improvement_pct);

}  // namespace moetune::select
