// poputil::createBroadcastOperand (declared in poputil/TileMapping.hpp): a 1-D operand mapped
// where the slices of the full tensor that use each of its elements already lie.
#include <poputil/TileMapping.hpp>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <utility>

#include <poputil/Util.hpp>
#include <poputil/exceptions.hpp>

namespace poputil {

using poplar::Interval;

namespace {

/// Sorts `list` and joins intervals that overlap or touch.
void unionInPlace(std::vector<Interval> &list) {
  std::sort(list.begin(), list.end());
  std::vector<Interval> out;
  for (const auto &iv : list) {
    if (iv.size() == 0)
      continue;
    if (!out.empty() && iv.begin() <= out.back().end())
      out.back() = Interval(out.back().begin(), std::max(out.back().end(), iv.end()));
    else
      out.push_back(iv);
  }
  list = std::move(out);
}

/// A run of consecutive operand elements and the tiles (ascending) that use every one of them.
struct UseRun {
  Interval elements;
  std::vector<unsigned> tiles;
};

/// For a full tensor with the broadcast dimension innermost (lines of `n` elements) mapped as
/// `mapping`, the runs of operand elements with the same set of using tiles, in order.
std::vector<UseRun> useRuns(const std::vector<std::vector<Interval>> &mapping, std::size_t n) {
  // Which operand elements each tile uses: its intervals folded onto one line.
  std::vector<std::pair<std::size_t, std::pair<bool, unsigned>>> events; // (at, (starts, tile))
  for (unsigned tile = 0; tile < mapping.size(); ++tile) {
    std::vector<Interval> used;
    for (const auto &iv : mapping[tile]) {
      if (iv.size() == 0)
        continue;
      const std::size_t b = iv.begin() % n, e = iv.end() % n == 0 ? n : iv.end() % n;
      if (iv.size() >= n) {
        used.emplace_back(0, n);
      } else if (b < e) {
        used.emplace_back(b, e);
      } else { // wraps past the end of a line
        used.emplace_back(b, n);
        used.emplace_back(0, e);
      }
    }
    unionInPlace(used);
    for (const auto &iv : used) {
      events.push_back({iv.begin(), {true, tile}});
      events.push_back({iv.end(), {false, tile}});
    }
  }
  std::sort(events.begin(), events.end());
  // Sweep: between consecutive event positions the set of using tiles does not change.
  std::vector<UseRun> runs;
  std::set<unsigned> active;
  for (std::size_t i = 0; i < events.size();) {
    const std::size_t at = events[i].first;
    for (; i < events.size() && events[i].first == at; ++i) {
      if (events[i].second.first)
        active.insert(events[i].second.second);
      else
        active.erase(events[i].second.second);
    }
    if (i == events.size() || active.empty())
      continue;
    const Interval segment(at, events[i].first);
    std::vector<unsigned> tiles(active.begin(), active.end());
    if (!runs.empty() && runs.back().elements.end() == at && runs.back().tiles == tiles)
      runs.back().elements = Interval(runs.back().elements.begin(), segment.end());
    else
      runs.push_back({segment, std::move(tiles)});
  }
  return runs;
}

/// A tile offset that depends only on `shape` (FNV-1a over its sizes).
std::size_t ditherOffset(const std::vector<std::size_t> &shape, std::size_t numTiles) {
  std::uint64_t h = 14695981039346656037ull;
  for (auto d : shape) {
    h ^= static_cast<std::uint64_t>(d);
    h *= 1099511628211ull;
  }
  return static_cast<std::size_t>(h % numTiles);
}

} // namespace

poplar::Tensor createBroadcastOperand(poplar::Graph &graph, const poplar::Tensor &fullTensor,
                                      const poplar::Type &type, unsigned dim, bool ditherMapping,
                                      const poplar::DebugContext &debugContext) {
  if (dim >= fullTensor.rank())
    throw poplibs_error("poputil::createBroadcastOperand: dimension " + std::to_string(dim) +
                        " is out of range for tensor " + fullTensor.shortString() + " of rank " +
                        std::to_string(fullTensor.rank()));
  const std::size_t n = fullTensor.dim(dim);
  poplar::Tensor out = graph.addVariable(type, {n}, debugContext);
  if (n == 0)
    return out;
  const poplar::Target &target = graph.getTarget();
  const std::size_t numTiles = target.getNumTiles();
  std::vector<std::vector<Interval>> mapping(numTiles);
  if (fullTensor.numElements() == 0) {
    // Nobody uses the operand: spread it like any new tensor.
    mapping = calcLinearTileMapping(graph, out);
  } else {
    // Grains of one data-path word, so a vertex reads whole words of the operand.
    const unsigned grain = std::max(1u, target.getDataPathWidth() / (8 * target.getTypeSize(type)));
    const auto full = graph.getTileMapping(fullTensor.dimRoll(dim, fullTensor.rank() - 1));
    for (const auto &run : useRuns(full, n)) {
      const auto parts =
          splitRegions({run.elements}, grain, static_cast<unsigned>(run.tiles.size()));
      for (std::size_t p = 0; p < parts.size(); ++p)
        mapping[run.tiles[p]].insert(mapping[run.tiles[p]].end(), parts[p].begin(), parts[p].end());
    }
  }
  if (ditherMapping) {
    const std::size_t offset = ditherOffset(fullTensor.shape(), numTiles);
    std::rotate(mapping.begin(), mapping.end() - offset, mapping.end());
  }
  graph.setTileMapping(out, mapping);
  return out;
}

} // namespace poputil
