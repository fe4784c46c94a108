#include "OptionSuggestion.hpp"

#include <poplar/exceptions.hpp>

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace poplin::detail {
namespace {

std::size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1] ? 1u : 0u)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

} // namespace

std::string didYouMean(std::string_view name, std::span<const std::string_view> validNames) {
  std::string_view best;
  std::size_t bestDistance = ~std::size_t(0);
  for (auto candidate : validNames) {
    const std::size_t d = editDistance(name, candidate);
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate;
    }
  }
  return bestDistance <= std::max<std::size_t>(3, name.size() / 2)
             ? " (did you mean '" + std::string(best) + "'?)"
             : "";
}

double parseMemoryProportion(std::string_view family, const std::string &value) {
  const std::string what = std::string(family) + " option availableMemoryProportion must be ";
  char *end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0')
    throw poplar::invalid_option(what + "a number, not '" + value + "'");
  if (!(v > 0.0 && v <= 1.0))
    throw poplar::invalid_option(what + "in (0, 1], not " + value);
  return v;
}

} // namespace poplin::detail
