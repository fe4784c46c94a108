#include "core/Suggest.hpp"

#include <algorithm>

namespace poplar::core {

namespace {
std::size_t editDistance(const std::string &a, const std::string &b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}
} // namespace

std::string nearestName(const std::string &name, const std::vector<std::string> &candidates) {
  std::string best;
  std::size_t bestDistance = ~std::size_t(0);
  for (const auto &c : candidates) {
    std::size_t d = editDistance(name, c);
    if (d < bestDistance) {
      bestDistance = d;
      best = c;
    }
  }
  if (best.empty() || bestDistance * 3 > std::max(name.size(), best.size()))
    return "";
  return best;
}

std::string didYouMean(const std::string &name, const std::vector<std::string> &candidates) {
  std::string n = nearestName(name, candidates);
  return n.empty() ? "" : " (did you mean '" + n + "'?)";
}

} // namespace poplar::core
