// Reference for popops/Loop.hpp: the counter values a loop body sees, pass by pass.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace reference {

/// countedLoop(begin, end, step): i = begin, begin + step, … while i < end.
inline std::vector<double> countedLoopCounters(std::size_t begin, std::size_t end,
                                               std::size_t step) {
  std::vector<double> seen;
  for (std::size_t i = begin; i < end; i += step)
    seen.push_back(static_cast<double>(i));
  return seen;
}

/// countedForLoop(initialCount, countLimit, countStep): count = initial, initial + step, …
/// while count != limit (stopping after `maxPasses` so a limit never reached stays finite).
inline std::vector<double> countedForLoopCounters(std::int64_t initial, std::int64_t limit,
                                                  std::int64_t step, std::size_t maxPasses) {
  std::vector<double> seen;
  for (std::int64_t c = initial; c != limit && seen.size() < maxPasses; c += step)
    seen.push_back(static_cast<double>(c));
  return seen;
}

} // namespace reference
