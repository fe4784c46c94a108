#include "HostPrices.hpp"

#include <tessera/apps/Errors.hpp>

#include <array>

namespace tessera::bench {
namespace {

struct Entry {
  const char *hostClass;
  HostPrice price;
};

// The 2-vCPU general-purpose compute instances these host classes are (one physical core with
// its two hyperthreads, as the benchmark machines report them).
const std::array<Entry, 2> kListPrices = {{
    {"amd-epyc-2c",
     {0.0765, "AWS EC2 c6a.large (2 vCPU, AMD EPYC), us-east-1 Linux on-demand list price, "
              "read 2026"}},
    {"intel-xeon-2c",
     {0.085, "AWS EC2 c6i.large (2 vCPU, Intel Xeon), us-east-1 Linux on-demand list price, "
             "read 2026"}},
}};

} // namespace

std::optional<HostPrice> listPriceOf(const std::string &hostClass) {
  for (const Entry &e : kListPrices)
    if (hostClass == e.hostClass)
      return e.price;
  return std::nullopt;
}

double samplesPerDollar(double samplesPerSecond, double dollarsPerHour) {
  if (!(dollarsPerHour > 0))
    throw apps::app_error("a price of " + std::to_string(dollarsPerHour) +
                          " dollars per hour: it must be > 0");
  return samplesPerSecond * 3600.0 / dollarsPerHour;
}

} // namespace tessera::bench
