// The arithmetic of a side-by-side comparison: each side's median and spread over rounds, and
// the speedup current / baseline with a confidence interval. Pure functions, so tests check them
// against hand-computed values.
//
// The interval is a paired percentile bootstrap over rounds: a resample draws whole rounds (both
// sides' runs of a round together, since they shared the machine's state at the time) with
// replacement and computes median(current) / median(baseline) of the drawn rounds. The generator
// is std::mt19937_64 with a fixed seed, whose output sequence the C++ standard fixes, so the same
// samples give the same interval on every platform and run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tessera::bench {

/// Median (mean of the middle two for an even count). Throws app_error when `values` is empty.
double median(std::vector<double> values);

struct Spread {
  double median = 0, min = 0, max = 0;
};
/// Median and range of `values` (non-empty, else app_error).
Spread spreadOf(const std::vector<double> &values);

struct BootstrapSettings {
  unsigned resamples = 10000;
  std::uint64_t seed = 20261206;
  double confidence = 0.95;
};

struct SpeedupEstimate {
  double speedup = 0; ///< median(current) / median(baseline); > 1: current is faster
  /// The bootstrap interval; absent with fewer than two rounds, where it would say nothing.
  std::optional<double> low, high;
  bool significant = false; ///< the interval lies wholly above or below 1.0
};

/// Speedup of `current` over `baseline` throughputs, paired by round (equal, non-zero counts and
/// positive values, else app_error).
SpeedupEstimate estimateSpeedup(const std::vector<double> &current,
                                const std::vector<double> &baseline,
                                const BootstrapSettings &settings = {});

/// How the interval is computed, for records and printed output.
std::string intervalMethod(const BootstrapSettings &settings);

} // namespace tessera::bench
