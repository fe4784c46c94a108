#include "TileRegions.hpp"

#include <algorithm>

namespace popops::detail {

std::vector<std::vector<poplar::Interval>> contiguousRunsPerTile(const poplar::Graph &graph,
                                                                 const poplar::Tensor &t) {
  const auto mapping = graph.getTileMapping(t); // throws if incomplete
  const auto runs = t.getContiguousRegions();   // sorted, covering [0, numElements)
  std::vector<std::vector<poplar::Interval>> out(mapping.size());
  for (std::size_t tile = 0; tile < mapping.size(); ++tile) {
    for (const auto &iv : mapping[tile]) {
      // Cut the tile interval at every contiguous-region boundary inside it.
      auto it =
          std::upper_bound(runs.begin(), runs.end(), iv.begin(),
                           [](std::size_t x, const poplar::Interval &r) { return x < r.begin(); });
      if (it != runs.begin())
        --it;
      for (std::size_t b = iv.begin(); b < iv.end(); ++it) {
        const std::size_t e = std::min(iv.end(), it->end());
        if (e > b)
          out[tile].emplace_back(b, e);
        b = std::max(b, e);
      }
    }
  }
  return out;
}

} // namespace popops::detail
