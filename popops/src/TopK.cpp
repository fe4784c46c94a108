// popops::topK family: one compute set; per tile one vertex handling the rows it owns.
#include <popops/TopK.hpp>

#include <ostream>

#include <poputil/Describe.hpp>
#include <poputil/VertexTemplates.hpp>
#include <poputil/exceptions.hpp>

#include "RowsByTile.hpp"
#include "SliceCommon.hpp"

namespace popops {

std::ostream &operator<<(std::ostream &os, const SortOrder &o) {
  switch (o) {
  case SortOrder::NONE:
    return os << "none";
  case SortOrder::ASCENDING:
    return os << "ascending";
  case SortOrder::DESCENDING:
    return os << "descending";
  }
  return os << "unknown";
}

TopKParams::TopKParams(unsigned k_, bool largest_, SortOrder sortOrder_, bool stableSort_) noexcept
    : k(k_), largest(largest_), sortOrder(sortOrder_), stableSort(stableSort_) {}

std::pair<poplar::Tensor, poplar::Tensor>
topKWithPermutation(poplar::Graph &graph, poplar::program::Sequence &prog, const poplar::Tensor &t,
                    const TopKParams &params, const poplar::DebugContext &debugContext) {
  const std::string fn = "popops::topK";
  detail::checkSliceableType(fn, t, "tensor");
  if (t.rank() == 0)
    throw poputil::poplibs_error(fn + ": tensor " + poputil::describe(t) +
                                 " must have at least one dimension");
  const std::size_t n = t.dim(t.rank() - 1);
  if (params.k == 0 || params.k > n)
    throw poputil::poplibs_error(fn + ": k = " + std::to_string(params.k) +
                                 " must be between 1 and the innermost dimension (" +
                                 std::to_string(n) + ") of " + poputil::describe(t));
  const std::size_t rows = t.numElements() / n;
  const poplar::Tensor in2d = t.reshape({rows, n});
  poplar::Tensor values =
      graph.addVariable(t.elementType(), {rows, params.k}, {debugContext, "topK"});
  poplar::Tensor indices =
      graph.addVariable(poplar::UNSIGNED_INT, {rows, params.k}, {debugContext, "topKIndices"});
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, "TopK"});
  const std::string vertex = poputil::templateVertex("popops::TopKRows", t.elementType());
  const unsigned order = params.sortOrder == SortOrder::ASCENDING    ? 1u
                         : params.sortOrder == SortOrder::DESCENDING ? 2u
                                                                     : 0u;
  for (const auto &[tile, rowList] : detail::rowsByTile(graph, in2d)) {
    for (std::size_t r : rowList) {
      graph.setTileMapping(values[r], tile);
      graph.setTileMapping(indices[r], tile);
    }
    auto v = graph.addVertex(cs, vertex,
                             {{"in", detail::joinRows(in2d, rowList)},
                              {"values", detail::joinRows(values, rowList)},
                              {"indices", detail::joinRows(indices, rowList)}});
    graph.setInitialValue(v["rowSize"], static_cast<unsigned>(n));
    graph.setInitialValue(v["k"], params.k);
    graph.setInitialValue(v["largest"], params.largest ? 1u : 0u);
    graph.setInitialValue(v["order"], order);
    graph.setTileMapping(v, tile);
  }
  prog.add(poplar::program::Execute(cs, {debugContext, "TopK"}));
  std::vector<std::size_t> shape = t.shape();
  shape.back() = params.k;
  return {values.reshape(shape), indices.reshape(shape)};
}

poplar::Tensor topK(poplar::Graph &graph, poplar::program::Sequence &prog, const poplar::Tensor &t,
                    const TopKParams &params, const poplar::DebugContext &debugContext) {
  return topKWithPermutation(graph, prog, t, params, debugContext).first;
}

} // namespace popops
