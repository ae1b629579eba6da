#pragma once
// The lowest and highest of a set of SM clock readings (MHz, measure/sm_clock_probe.h). A reading of 0
// (the probe read no clock) is left out, so a range of no readings stays 0-0. The sweep's report, its
// clock recheck and the bench's arms all keep one.
#include <algorithm>

namespace moetune {

struct ClockRange {
    double low_mhz = 0;
    double high_mhz = 0;

    void add(double mhz) {
        if (mhz <= 0) return;
        low_mhz = low_mhz > 0 ? std::min(low_mhz, mhz) : mhz;
        high_mhz = std::max(high_mhz, mhz);
    }
    void add(const ClockRange& other) {
        add(other.low_mhz);
        add(other.high_mhz);
    }
    bool read() const { return high_mhz > 0; }
    // How far a time taken at one reading can be from one taken at another (1 when none or all agree).
    double ratio() const { return read() ? high_mhz / low_mhz : 1.0; }
};

}  // namespace moetune
