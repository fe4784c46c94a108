#include <popops/Iota.hpp>

#include <poputil/VertexTemplates.hpp>
#include <poputil/exceptions.hpp>

#include "TileRegions.hpp"

namespace popops {

namespace {
template <class T>
void addIota(poplar::Graph &graph, const poplar::Tensor &t, T start,
             poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  const poplar::Type type = poplar::equivalent_device_type<T>::value;
  if (t.rank() != 1 || t.elementType() != type)
    throw poputil::poplibs_error("popops::iota needs a rank-1 " + type.toString() +
                                 " tensor, got " + t.shortString());
  poplar::ComputeSet cs = graph.addComputeSet({dc, "Iota"});
  const std::string vertexType = poputil::templateVertex("popops::Iota", type);
  const auto runs = detail::contiguousRunsPerTile(graph, t);
  for (unsigned tile = 0; tile < runs.size(); ++tile)
    for (const auto &run : runs[tile]) {
      auto v = graph.addVertex(cs, vertexType, {{"out", t.slice(run)}});
      graph.setInitialValue(v["offset"], static_cast<T>(start + static_cast<T>(run.begin())));
      graph.setTileMapping(v, tile);
    }
  prog.add(poplar::program::Execute(cs, {dc, "Iota"}));
}
} // namespace

void iota(poplar::Graph &graph, const poplar::Tensor &t, unsigned startInteger,
          poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  addIota(graph, t, startInteger, prog, debugContext);
}

void iota(poplar::Graph &graph, const poplar::Tensor &t, int startInteger,
          poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  addIota(graph, t, startInteger, prog, debugContext);
}

} // namespace popops
