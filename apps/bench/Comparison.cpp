#include "Comparison.hpp"

#include <tessera/apps/Errors.hpp>

#include <algorithm>
#include <cmath>
#include <random>

namespace tessera::bench {

double median(std::vector<double> values) {
  if (values.empty())
    throw apps::app_error("median of no samples");
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

Spread spreadOf(const std::vector<double> &values) {
  Spread s;
  s.median = median(values);
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  s.min = *lo;
  s.max = *hi;
  return s;
}

SpeedupEstimate estimateSpeedup(const std::vector<double> &current,
                                const std::vector<double> &baseline,
                                const BootstrapSettings &settings) {
  if (current.empty() || current.size() != baseline.size())
    throw apps::app_error("speedup needs the same non-zero number of rounds on both sides (" +
                          std::to_string(current.size()) + " current, " +
                          std::to_string(baseline.size()) + " baseline)");
  for (double v : baseline)
    if (!(v > 0))
      throw apps::app_error("a baseline throughput of " + std::to_string(v) +
                            " cannot divide a speedup");
  SpeedupEstimate estimate;
  estimate.speedup = median(current) / median(baseline);
  const std::size_t rounds = current.size();
  if (rounds < 2 || settings.resamples == 0)
    return estimate;

  std::mt19937_64 generator(settings.seed);
  std::vector<double> ratios;
  ratios.reserve(settings.resamples);
  std::vector<double> c(rounds), b(rounds);
  for (unsigned r = 0; r < settings.resamples; ++r) {
    for (std::size_t i = 0; i < rounds; ++i) {
      // The raw engine output rather than uniform_int_distribution, whose algorithm each
      // standard library chooses; the modulo bias for a handful of rounds is below 1e-17.
      const std::size_t pick = static_cast<std::size_t>(generator() % rounds);
      c[i] = current[pick];
      b[i] = baseline[pick];
    }
    ratios.push_back(median(c) / median(b));
  }
  std::sort(ratios.begin(), ratios.end());
  const double tail = (1.0 - settings.confidence) / 2.0;
  const auto n = static_cast<double>(ratios.size());
  const auto lowIndex = static_cast<std::size_t>(std::floor(tail * n));
  const auto highIndex =
      static_cast<std::size_t>(std::max(0.0, std::min(n - 1.0, std::ceil((1.0 - tail) * n) - 1.0)));
  estimate.low = ratios[std::min(lowIndex, ratios.size() - 1)];
  estimate.high = ratios[highIndex];
  estimate.significant = *estimate.low > 1.0 || *estimate.high < 1.0;
  return estimate;
}

std::string intervalMethod(const BootstrapSettings &settings) {
  return std::to_string(static_cast<int>(std::lround(settings.confidence * 100))) +
         "% paired percentile bootstrap over rounds of median(current)/median(baseline), " +
         std::to_string(settings.resamples) + " resamples, mt19937_64 seed " +
         std::to_string(settings.seed);
}

} // namespace tessera::bench
