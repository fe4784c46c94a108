#include <popops/Fill.hpp>

#include <algorithm>
#include <vector>

#include <poplar/exceptions.hpp>
#include <poputil/VertexTemplates.hpp>

#include "TileRegions.hpp"

namespace popops {

namespace {

/// Regions one Fill2d vertex takes at most: its vertex state grows with them (a pointer and a
/// size each), so a tile mapped element by element gets a few vertices, not one huge one.
constexpr std::size_t kRegionsPerFill2d = 1024;
/// Up to this many regions on a tile, plain Fill vertices (one per region) are as cheap.
constexpr std::size_t kMaxSingleFills = 4;

template <class T>
void addFillVertices(poplar::Graph &graph, const poplar::Tensor &t, poplar::ComputeSet cs,
                     T value) {
  const auto type = t.elementType();
  const std::string vertexType = poputil::templateVertex("popops::Fill", type);
  const std::string vertexType2d = poputil::templateVertex("popops::Fill2d", type);
  const poplar::Tensor flat = t.flatten();
  // Runs that lie back to back in tile memory are one region to fill, however they are ordered
  // in the tensor (a weight laid out block by block has one per row of each block).
  const auto groups = detail::memoryOrderedRunsPerTile(graph, t);
  for (unsigned tile = 0; tile < groups.size(); ++tile) {
    if (groups[tile].empty())
      continue;
    const std::vector<poplar::Tensor> tileRegions = flat.slices(groups[tile]);
    if (tileRegions.size() <= kMaxSingleFills) {
      for (const auto &region : tileRegions) {
        auto v = graph.addVertex(cs, vertexType, {{"out", region}});
        graph.setInitialValue(v["value"], value);
        graph.setTileMapping(v, tile);
      }
      continue;
    }
    for (std::size_t first = 0; first < tileRegions.size(); first += kRegionsPerFill2d) {
      const std::size_t last = std::min(tileRegions.size(), first + kRegionsPerFill2d);
      const std::vector<poplar::Tensor> regions(tileRegions.begin() + first,
                                                tileRegions.begin() + last);
      auto v = graph.addVertex(cs, vertexType2d);
      graph.connect(v["out"], regions);
      graph.setInitialValue(v["value"], value);
      graph.setTileMapping(v, tile);
    }
  }
}

} // namespace

template <class FillValueType>
void fill(poplar::Graph &graph, const poplar::Tensor &t, poplar::ComputeSet cs,
          FillValueType fillValue) {
  addFillVertices(graph, t, cs, fillValue);
}

template <class FillValueType>
void fill(poplar::Graph &graph, const poplar::Tensor &t, poplar::program::Sequence &prog,
          FillValueType fillValue, const poplar::DebugContext &debugContext) {
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, "Fill"});
  addFillVertices(graph, t, cs, fillValue);
  prog.add(poplar::program::Execute(cs, {debugContext, "Fill"}));
}

void zero(poplar::Graph &graph, const poplar::Tensor &t, poplar::program::Sequence &prog,
          const poplar::DebugContext &debugContext) {
  fill(graph, t, prog, 0, {debugContext, "Zero"});
}

#define TESSERA_INSTANTIATE_FILL(T)                                                                \
  template void fill<T>(poplar::Graph &, const poplar::Tensor &, poplar::program::Sequence &, T,   \
                        const poplar::DebugContext &);                                             \
  template void fill<T>(poplar::Graph &, const poplar::Tensor &, poplar::ComputeSet, T);
TESSERA_INSTANTIATE_FILL(float)
TESSERA_INSTANTIATE_FILL(int)
TESSERA_INSTANTIATE_FILL(unsigned)
TESSERA_INSTANTIATE_FILL(short)
TESSERA_INSTANTIATE_FILL(unsigned short)
TESSERA_INSTANTIATE_FILL(bool)
TESSERA_INSTANTIATE_FILL(char)
TESSERA_INSTANTIATE_FILL(signed char)
TESSERA_INSTANTIATE_FILL(unsigned char)
TESSERA_INSTANTIATE_FILL(long long)
TESSERA_INSTANTIATE_FILL(unsigned long long)
#undef TESSERA_INSTANTIATE_FILL

} // namespace popops
