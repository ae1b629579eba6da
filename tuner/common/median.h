#pragma once
// The median of values already sorted ascending: the middle one, or the mean of the middle two.
// The callers sort anyway (for min and max too), so this does not sort again.
#include <cassert>
#include <vector>

namespace moetune {

template <class T>
double sorted_median(const std::vector<T>& sorted) {
    assert(!sorted.empty());
    const std::size_t n = sorted.size();
    return n % 2 ? double(sorted[n / 2]) : (double(sorted[n / 2 - 1]) + double(sorted[n / 2])) / 2;
}

}  // namespace moetune
