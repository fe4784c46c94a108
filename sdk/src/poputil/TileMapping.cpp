#include <poputil/TileMapping.hpp>

#include <algorithm>

#include <poplar/exceptions.hpp>

namespace poputil {

using poplar::Interval;

std::vector<std::vector<Interval>> calcLinearTileMapping(const poplar::Graph &graph,
                                                         std::vector<std::size_t> shape,
                                                         unsigned minElementsPerTile,
                                                         unsigned grainSize) {
  if (grainSize == 0)
    throw poplar::index_error("calcLinearTileMapping: grainSize must be at least 1");
  const unsigned numTiles = graph.getTarget().getNumTiles();
  std::size_t n = 1;
  for (auto d : shape)
    n *= d;
  std::vector<std::vector<Interval>> mapping(numTiles);
  if (n == 0)
    return mapping;
  const std::size_t numGrains = (n + grainSize - 1) / grainSize;
  const std::size_t balanced = (numGrains + numTiles - 1) / numTiles;
  const std::size_t minGrains = (minElementsPerTile + grainSize - 1) / grainSize;
  const std::size_t perTile = std::max<std::size_t>({balanced, minGrains, 1}) * grainSize;
  for (std::size_t begin = 0, tile = 0; begin < n; begin += perTile, ++tile)
    mapping[tile].emplace_back(begin, std::min(n, begin + perTile));
  return mapping;
}

std::vector<std::vector<Interval>> calcLinearTileMapping(const poplar::Graph &graph,
                                                         const poplar::Tensor &t) {
  return calcLinearTileMapping(graph, t.shape(), 128,
                               graph.getTarget().getVectorWidth(t.elementType()));
}

void mapTensorLinearly(poplar::Graph &graph, const poplar::Tensor &t, unsigned minElementsPerTile,
                       unsigned grainSize) {
  graph.setTileMapping(t, calcLinearTileMapping(graph, t.shape(), minElementsPerTile, grainSize));
}

void mapTensorLinearly(poplar::Graph &graph, const poplar::Tensor &t) {
  graph.setTileMapping(t, calcLinearTileMapping(graph, t));
}

unsigned getTileImbalance(const poplar::Graph &graph, const poplar::Tensor &t,
                          unsigned minElementsPerTile, unsigned grainSize) {
  auto actual = graph.getTileMapping(t, false);
  auto ideal = calcLinearTileMapping(graph, t.shape(), minElementsPerTile, grainSize);
  auto maxOnTile = [](const std::vector<std::vector<Interval>> &m) {
    std::size_t best = 0;
    for (const auto &tile : m) {
      std::size_t n = 0;
      for (const auto &iv : tile)
        n += iv.size();
      best = std::max(best, n);
    }
    return best;
  };
  const std::size_t a = maxOnTile(actual), i = maxOnTile(ideal);
  return a > i ? static_cast<unsigned>(a - i) : 0;
}

std::vector<unsigned> getTilesUsed(const poplar::Graph &graph, const poplar::Tensor &t) {
  auto m = graph.getTileMapping(t, false);
  std::vector<unsigned> out;
  for (unsigned tile = 0; tile < m.size(); ++tile)
    if (!m[tile].empty())
      out.push_back(tile);
  return out;
}

std::vector<unsigned> wholeRowTiles(const poplar::Graph &graph, const poplar::Tensor &rows2d) {
  const std::size_t rows = rows2d.dim(0), cols = rows2d.dim(1);
  constexpr unsigned kSpread = ~0u;
  std::vector<unsigned> home(rows, kSpread);
  if (rows == 0 || cols == 0)
    return std::vector<unsigned>(rows, 0);
  const auto mapping = graph.getTileMapping(rows2d);
  for (unsigned tile = 0; tile < mapping.size(); ++tile)
    for (const auto &interval : mapping[tile])
      for (std::size_t r = (interval.begin() + cols - 1) / cols; (r + 1) * cols <= interval.end();
           ++r)
        home[r] = tile;
  const std::size_t spread = std::count(home.begin(), home.end(), kSpread);
  const std::size_t numTiles = graph.getTarget().getNumTiles();
  for (std::size_t r = 0, k = 0; r < rows; ++r)
    if (home[r] == kSpread)
      home[r] = static_cast<unsigned>(k++ * numTiles / spread);
  return home;
}

} // namespace poputil
