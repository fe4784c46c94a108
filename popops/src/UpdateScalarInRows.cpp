// updateScalarInRows: one UpdateScalarInRows vertex per tile over the rows it works on, in place.
#include <popops/UpdateScalarInRows.hpp>

#include <poputil/VertexTemplates.hpp>

#include "RowsByTile.hpp"
#include "ScalarInRowsCommon.hpp"

namespace popops {

void updateScalarInRows(poplar::Graph &graph, const poplar::Tensor &params,
                        const poplar::Tensor &indices, poplar::program::Sequence &program,
                        const poplar::DebugContext &debugContext) {
  detail::checkScalarInRowsArgs("updateScalarInRows", params, indices);
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, "UpdateScalarInRows"});
  const std::string vertexType =
      poputil::templateVertex("popops::UpdateScalarInRows", params.elementType());
  // A matrix without elements has nothing to update.
  if (params.numElements() != 0)
    for (const auto &[tile, tileRows] : detail::rowsByTile(graph, params)) {
      auto v = graph.addVertex(cs, vertexType,
                               {{"params", detail::joinRows(params, tileRows)},
                                {"indices", detail::joinElements(indices, tileRows)}});
      graph.setInitialValue(v["width"], static_cast<unsigned>(params.dim(1)));
      graph.setTileMapping(v, tile);
    }
  program.add(poplar::program::Execute(cs, {debugContext, "UpdateScalarInRows"}));
}

} // namespace popops
