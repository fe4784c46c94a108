#include <poputil/Suggest.hpp>

#include <algorithm>

namespace poputil {

std::size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i)
    d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j)
    d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

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

} // namespace poputil
