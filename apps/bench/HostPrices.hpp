// What an hour of each host class costs, so performance per dollar can be printed without the
// user looking prices up: public cloud on-demand list prices of the instance type that matches
// the class. The source of every figure is part of the entry (and printed beside it); prices
// change, and `--price-per-hour` or `--system-price` always override them.
#pragma once

#include <optional>
#include <string>

namespace tessera::bench {

struct HostPrice {
  double dollarsPerHour = 0;
  std::string source; ///< instance type, region, kind of price and when it was read
};

/// The list price of `hostClass` (e.g. "amd-epyc-2c"), or nothing for a class without one.
std::optional<HostPrice> listPriceOf(const std::string &hostClass);

/// Samples per dollar at `dollarsPerHour` (> 0): throughput × 3600 / price.
double samplesPerDollar(double samplesPerSecond, double dollarsPerHour);

} // namespace tessera::bench
