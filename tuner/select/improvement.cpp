#include "select/improvement.h"

#include <cmath>

namespace moetune::select {

bool replaces_existing(double new_us, std::optional<double> old_us, double min_improvement_pct) {
    if (!old_us || !std::isfinite(*old_us) || *old_us <= 0) return true;
    return new_us < *old_us * (1.0 - min_improvement_pct / 100.0);
}

}  // namespace moetune::select
