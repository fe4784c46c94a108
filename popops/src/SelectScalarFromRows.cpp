// selectScalarFromRows: one SelectScalarFromRows vertex per tile over the rows it works on; the
// result elements of those rows are mapped to the same tile.
#include <popops/SelectScalarFromRows.hpp>

#include <poputil/VertexTemplates.hpp>

#include "RowsByTile.hpp"
#include "ScalarInRowsCommon.hpp"

namespace popops {

poplar::Tensor selectScalarFromRows(poplar::Graph &graph, const poplar::Tensor &params,
                                    const poplar::Tensor &indices, poplar::program::Sequence &prog,
                                    const poplar::DebugContext &debugContext) {
  detail::checkScalarInRowsArgs("selectScalarFromRows", params, indices);
  const poplar::Type type = params.elementType();
  const std::size_t rows = params.dim(0), width = params.dim(1);
  poplar::Tensor out = graph.addVariable(type, {rows}, {debugContext, "selected"});
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, "SelectScalarFromRows"});
  const std::string vertexType = poputil::templateVertex("popops::SelectScalarFromRows", type);
  if (rows != 0) {
    // A [rows][0] matrix has no elements to say where its rows live: work on tile 0.
    std::map<unsigned, std::vector<std::size_t>> byTile;
    if (width == 0)
      for (std::size_t r = 0; r < rows; ++r)
        byTile[0].push_back(r);
    else
      byTile = detail::rowsByTile(graph, params);
    for (const auto &[tile, tileRows] : byTile) {
      const poplar::Tensor tileOut = detail::joinElements(out, tileRows);
      graph.setTileMapping(tileOut, tile);
      auto v = graph.addVertex(cs, vertexType,
                               {{"params", detail::joinRows(params, tileRows)},
                                {"indices", detail::joinElements(indices, tileRows)},
                                {"out", tileOut}});
      graph.setInitialValue(v["width"], static_cast<unsigned>(width));
      graph.setTileMapping(v, tile);
    }
  }
  prog.add(poplar::program::Execute(cs, {debugContext, "SelectScalarFromRows"}));
  return out;
}

} // namespace popops
