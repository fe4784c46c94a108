#include <poputil/TileMapping.hpp>

#include <algorithm>

#include <string>

#include <poplar/exceptions.hpp>
#include <poputil/Util.hpp>
#include <poputil/exceptions.hpp>

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

unsigned getTileImbalance(const std::vector<std::vector<Interval>> &mapping,
                          unsigned minElementsPerTile, unsigned grainSize) {
  if (grainSize == 0)
    throw poputil::poplibs_error("poputil::getTileImbalance: grainSize must be at least 1");
  std::size_t total = 0, fullest = 0;
  for (const auto &tile : mapping) {
    std::size_t n = 0;
    for (const auto &iv : tile)
      n += iv.size();
    total += n;
    fullest = std::max(fullest, n);
  }
  if (mapping.empty() || total == 0)
    return 0;
  // The fullest tile of a linear mapping over the same number of tiles (as calcLinearTileMapping).
  const std::size_t grains = (total + grainSize - 1) / grainSize;
  const std::size_t balanced = (grains + mapping.size() - 1) / mapping.size();
  const std::size_t minGrains = (minElementsPerTile + grainSize - 1) / grainSize;
  const std::size_t ideal =
      std::min(total, std::max<std::size_t>({balanced, minGrains, 1}) * grainSize);
  return fullest > ideal ? static_cast<unsigned>(fullest - ideal) : 0;
}

namespace {

/// Whether some line of `t` along `dimension` has elements in two groups of tiles, the group of
/// a tile being tile / tilesPerGroup.
bool dimIsSplit(const char *who, const poplar::Graph &graph, const poplar::Tensor &t,
                unsigned dimension, unsigned tilesPerGroup) {
  if (dimension >= t.rank())
    throw poputil::poplibs_error(std::string(who) + ": dimension " + std::to_string(dimension) +
                                 " is out of range for tensor " + t.shortString() + " of rank " +
                                 std::to_string(t.rank()));
  const std::size_t line = t.dim(dimension);
  if (t.numElements() == 0 || line <= 1)
    return false;
  // With the dimension innermost, lines are the runs [k*line, (k+1)*line): a line is split when
  // a group's merged intervals start or end inside one.
  const auto mapping = graph.getTileMapping(t.dimRoll(dimension, t.rank() - 1));
  std::vector<std::vector<Interval>> groups((mapping.size() + tilesPerGroup - 1) / tilesPerGroup);
  for (std::size_t tile = 0; tile < mapping.size(); ++tile)
    groups[tile / tilesPerGroup].insert(groups[tile / tilesPerGroup].end(), mapping[tile].begin(),
                                        mapping[tile].end());
  for (auto &group : groups) {
    poputil::mergeAdjacentRegions(group);
    for (const auto &iv : group)
      if (iv.begin() % line != 0 || iv.end() % line != 0)
        return true;
  }
  return false;
}

} // namespace

bool dimIsSplitOverTiles(const poplar::Graph &graph, const poplar::Tensor &t, unsigned dimension) {
  return dimIsSplit("poputil::dimIsSplitOverTiles", graph, t, dimension, 1);
}

bool dimIsSplitOverIPUs(const poplar::Graph &graph, const poplar::Tensor &t, unsigned dimension) {
  return dimIsSplit("poputil::dimIsSplitOverIPUs", graph, t, dimension,
                    graph.getTarget().getTilesPerIPU());
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
