// Helpers for convolution methods whose vertices read or write whole (channel, batch) planes of
// channel-major activations (ConvWinograd.cpp, ConvLowered.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/Tensor.hpp>

namespace poplin::detail {

/// [B][G·C][H][W] → [G][C·B][H·W] (a view): plane (c, b) of group g is row c·B + b, the order
/// the channel-major layout stores them in.
inline poplar::Tensor planesOf(const poplar::Tensor &t, std::size_t groups) {
  return t.reshapePartial(1, 2, {groups, t.dim(1) / groups})
      .dimShuffle({1, 2, 0, 3, 4})
      .flatten(1, 3)
      .flatten(2, 4);
}

/// A vertex gets at least this many values to write, so the host runs few, long vertices rather
/// than thousands of tiny ones.
constexpr std::size_t kMinValuesPerVertex = 4096;

/// Chunks [begin, end) of `count` items per group, each item worth `valuesPerItem` values: at
/// least kMinValuesPerVertex values per chunk and at most one chunk per tile in all.
inline std::vector<std::pair<std::size_t, std::size_t>>
itemChunks(std::size_t count, std::size_t valuesPerItem, std::size_t groups, std::size_t tiles) {
  std::size_t per = std::max((kMinValuesPerVertex + valuesPerItem - 1) / valuesPerItem,
                             (groups * count + tiles - 1) / tiles);
  per = std::clamp<std::size_t>(per, 1, count);
  const std::size_t n = (count + per - 1) / per;
  std::vector<std::pair<std::size_t, std::size_t>> result;
  for (std::size_t c = 0; c < n; ++c)
    result.emplace_back(count * c / n, count * (c + 1) / n);
  return result;
}

/// The tile of item `index` of `total` spread evenly, in order, over `tiles` tiles.
inline unsigned evenTile(std::size_t index, std::size_t total, std::size_t tiles) {
  return unsigned(index * tiles / std::max<std::size_t>(total, 1));
}

/// Places the compute set's vertices evenly over the tiles, in the order they were added (so a
/// vertex reading an evenly spread tensor in order finds most of its input on its own tile).
class VertexPlacer {
public:
  VertexPlacer(poplar::Graph &graph, std::size_t total)
      : graph_(graph), tiles_(graph.getTarget().getNumTiles()), total_(total) {}
  /// Maps `v` and, when given, the transformed values it writes (`written`: a new tensor's
  /// slice), to the next tile: transforms then write their results in place, and only the
  /// product's own exchange moves them.
  void place(poplar::VertexRef v, const poplar::Tensor *written = nullptr) {
    const unsigned tile = evenTile(next_++, total_, tiles_);
    graph_.setTileMapping(v, tile);
    if (written)
      graph_.setTileMapping(*written, tile);
  }

private:
  poplar::Graph &graph_;
  std::size_t tiles_, total_, next_ = 0;
};

} // namespace poplin::detail
