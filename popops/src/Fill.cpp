#include <popops/Fill.hpp>

#include <poplar/exceptions.hpp>
#include <poputil/VertexTemplates.hpp>

#include "TileRegions.hpp"

namespace popops {

namespace {

template <class T>
void addFillVertices(poplar::Graph &graph, const poplar::Tensor &t, poplar::ComputeSet cs,
                     T value) {
  const auto type = t.elementType();
  const std::string vertexType = poputil::templateVertex("popops::Fill", type);
  const poplar::Tensor flat = t.flatten();
  const auto runs = detail::contiguousRunsPerTile(graph, t);
  for (unsigned tile = 0; tile < runs.size(); ++tile)
    for (const auto &run : runs[tile]) {
      auto v = graph.addVertex(cs, vertexType, {{"out", flat.slice(run)}});
      graph.setInitialValue(v["value"], value);
      graph.setTileMapping(v, tile);
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
