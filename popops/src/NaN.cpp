// hasNaN / hasNaNOrInf: one HasNaN vertex per batch of a tile's regions writes a per-vertex BOOL
// flag on that tile; a LOGICAL_OR reduction of the flags gives the answer.
#include <popops/NaN.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <popops/Fill.hpp>
#include <popops/Reduce.hpp>
#include <poputil/VertexTemplates.hpp>
#include <poputil/exceptions.hpp>

#include "TileRegions.hpp"

namespace popops {

namespace {

/// Regions one HasNaN vertex takes at most (its state grows with them).
constexpr std::size_t kRegionsPerVertex = 1024;

poplar::Tensor checkForNaN(poplar::Graph &graph, const poplar::Tensor &src,
                           poplar::program::Sequence &prog, bool alsoInf,
                           const poplar::DebugContext &dc) {
  const char *name = alsoInf ? "hasNaNOrInf" : "hasNaN";
  const poplar::Type type = src.elementType();
  if (type != poplar::FLOAT && type != poplar::HALF)
    throw poputil::poplibs_error(std::string("popops::") + name +
                                 ": src must be FLOAT or HALF, got " + src.shortString());
  poplar::Tensor result = graph.addVariable(poplar::BOOL, {}, {dc, name});
  graph.setTileMapping(result, 0);
  if (src.numElements() == 0) {
    fill(graph, result, prog, false, {dc, name});
    return result;
  }
  const std::string vertexType = poputil::templateVertex("popops::HasNaN", type, alsoInf);
  poplar::ComputeSet cs = graph.addComputeSet({dc, name});
  const poplar::Tensor flat = src.flatten();
  const auto runs = detail::contiguousRunsPerTile(graph, src);
  // One flag per vertex, each on its vertex's tile.
  std::vector<std::pair<unsigned, std::vector<poplar::Tensor>>> batches;
  for (unsigned tile = 0; tile < runs.size(); ++tile)
    for (std::size_t first = 0; first < runs[tile].size(); first += kRegionsPerVertex) {
      const std::size_t last = std::min(runs[tile].size(), first + kRegionsPerVertex);
      std::vector<poplar::Tensor> regions;
      for (std::size_t r = first; r < last; ++r)
        regions.push_back(flat.slice(runs[tile][r]));
      batches.emplace_back(tile, std::move(regions));
    }
  poplar::Tensor flags = graph.addVariable(poplar::BOOL, {batches.size()}, {dc, "flags"});
  for (std::size_t b = 0; b < batches.size(); ++b) {
    const unsigned tile = batches[b].first;
    graph.setTileMapping(flags[b], tile);
    auto v = graph.addVertex(cs, vertexType);
    graph.connect(v["in"], batches[b].second);
    graph.connect(v["out"], flags[b]);
    graph.setTileMapping(v, tile);
  }
  prog.add(poplar::program::Execute(cs, {dc, name}));
  reduceWithOutput(graph, flags, result, {0}, Operation::LOGICAL_OR, prog, {dc, name});
  return result;
}

} // namespace

poplar::Tensor hasNaN(poplar::Graph &graph, const poplar::Tensor &src,
                      poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  return checkForNaN(graph, src, prog, false, debugContext);
}

poplar::Tensor hasNaNOrInf(poplar::Graph &graph, const poplar::Tensor &src,
                           poplar::program::Sequence &prog,
                           const poplar::DebugContext &debugContext) {
  return checkForNaN(graph, src, prog, true, debugContext);
}

} // namespace popops
