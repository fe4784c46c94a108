// Reference for popops/GatherStatistics.hpp.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace reference {

/// levels.size() + 1 bins: an element (|x| with `absolute`) counts in bin k where k is the
/// number of levels it is not below (!(x < level)), so for ascending levels bin 0 is
/// x < levels[0], bin k is levels[k-1] <= x < levels[k], the last bin x >= the last level, and
/// a NaN (below no level) lands in the last bin.
inline std::vector<double> histogram(const std::vector<double> &input,
                                     const std::vector<double> &levels, bool absolute) {
  std::vector<double> bins(levels.size() + 1, 0.0);
  for (double v : input) {
    const double x = absolute ? std::fabs(v) : v;
    std::size_t k = 0;
    for (double level : levels)
      k += (x < level) ? 0 : 1;
    bins[k] += 1;
  }
  return bins;
}

} // namespace reference
