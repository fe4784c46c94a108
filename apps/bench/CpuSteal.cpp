#include "CpuSteal.hpp"

#include <fstream>
#include <sstream>
#include <string>

namespace tessera::bench {

std::optional<CpuTimes> parseCpuTimes(std::string_view procStat) {
  std::istringstream lines{std::string(procStat)};
  std::string line;
  if (!std::getline(lines, line) || line.rfind("cpu ", 0) != 0)
    return std::nullopt;
  std::istringstream fields(line.substr(4));
  CpuTimes times{};
  for (auto &t : times)
    if (!(fields >> t))
      return std::nullopt; // kernels before 2.6.11 have no steal field
  return times;
}

std::optional<CpuTimes> readCpuTimes() {
  std::ifstream in("/proc/stat");
  std::string line;
  if (!in || !std::getline(in, line))
    return std::nullopt;
  return parseCpuTimes(line);
}

std::optional<double> stolenShare(const std::optional<CpuTimes> &before,
                                  const std::optional<CpuTimes> &after) {
  if (!before || !after)
    return std::nullopt;
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < before->size(); ++i)
    total += (*after)[i] - (*before)[i];
  if (total == 0)
    return 0.0;
  return static_cast<double>((*after)[7] - (*before)[7]) / static_cast<double>(total);
}

} // namespace tessera::bench
