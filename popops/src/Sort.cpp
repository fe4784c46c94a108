// popops::sort family: one compute set; per tile one vertex sorting the rows it owns.
#include <popops/Sort.hpp>

#include <poputil/Describe.hpp>
#include <poputil/VertexTemplates.hpp>
#include <poputil/exceptions.hpp>

#include "RowsByTile.hpp"
#include "SliceCommon.hpp"

namespace popops {

namespace {

poplar::Tensor rowsAlong(const poplar::Tensor &t, unsigned dim) {
  const std::size_t n = t.dim(dim);
  const std::size_t rows = n == 0 ? 0 : t.numElements() / n;
  return t.dimRoll(dim, t.rank() - 1).reshape({rows, n});
}

void checkSortArgs(const std::string &fn, const poplar::Tensor &t, unsigned dim,
                   const std::string &what) {
  detail::checkSliceableType(fn, t, what);
  if (dim >= t.rank())
    throw poputil::poplibs_error(fn + ": dim " + std::to_string(dim) + " is out of range for " +
                                 what + " " + poputil::describe(t));
}

} // namespace

void sortInPlace(poplar::Graph &graph, const poplar::Tensor &t, unsigned dim,
                 poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  checkSortArgs("popops::sortInPlace", t, dim, "tensor");
  const poplar::Tensor rows = rowsAlong(t, dim);
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, "Sort"});
  const std::string vertex = poputil::templateVertex("popops::SortRows", t.elementType());
  for (const auto &[tile, rowList] : detail::rowsByTile(graph, rows)) {
    auto v = graph.addVertex(cs, vertex, {{"data", detail::joinRows(rows, rowList)}});
    graph.setInitialValue(v["rowSize"], static_cast<unsigned>(rows.dim(1)));
    graph.setTileMapping(v, tile);
  }
  prog.add(poplar::program::Execute(cs, {debugContext, "Sort"}));
}

poplar::Tensor sort(poplar::Graph &graph, const poplar::Tensor &t, unsigned dim,
                    poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  checkSortArgs("popops::sort", t, dim, "tensor");
  poplar::Tensor out = graph.clone(t, {debugContext, "sorted"});
  prog.add(poplar::program::Copy(t, out, false, {debugContext, "copyToSort"}));
  sortInPlace(graph, out, dim, prog, debugContext);
  return out;
}

void sortKeyValueInPlace(poplar::Graph &graph, const poplar::Tensor &k, const poplar::Tensor &v,
                         unsigned dim, poplar::program::Sequence &prog,
                         const poplar::DebugContext &debugContext) {
  const std::string fn = "popops::sortKeyValueInPlace";
  checkSortArgs(fn, k, dim, "keys");
  checkSortArgs(fn, v, dim, "values");
  if (k.shape() != v.shape())
    throw poputil::poplibs_error(fn + ": keys " + poputil::describe(k) + " and values " +
                                 poputil::describe(v) + " differ in shape");
  const poplar::Tensor keyRows = rowsAlong(k, dim), valueRows = rowsAlong(v, dim);
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, "SortKeyValue"});
  const std::string vertex =
      poputil::templateVertex("popops::SortKeyValueRows", k.elementType(), v.elementType());
  for (const auto &[tile, rowList] : detail::rowsByTile(graph, keyRows)) {
    auto vx = graph.addVertex(cs, vertex,
                              {{"keys", detail::joinRows(keyRows, rowList)},
                               {"values", detail::joinRows(valueRows, rowList)}});
    graph.setInitialValue(vx["rowSize"], static_cast<unsigned>(keyRows.dim(1)));
    graph.setTileMapping(vx, tile);
  }
  prog.add(poplar::program::Execute(cs, {debugContext, "SortKeyValue"}));
}

poplar::Tensor sortKeyValue(poplar::Graph &graph, const poplar::Tensor &k, const poplar::Tensor &v,
                            unsigned dim, poplar::program::Sequence &prog,
                            const poplar::DebugContext &debugContext) {
  const std::string fn = "popops::sortKeyValue";
  checkSortArgs(fn, k, dim, "keys");
  checkSortArgs(fn, v, dim, "values");
  poplar::Tensor keys = graph.clone(k, {debugContext, "keys"});
  poplar::Tensor values = graph.clone(v, {debugContext, "sortedValues"});
  prog.add(poplar::program::Copy(k, keys, false, {debugContext, "copyKeys"}));
  prog.add(poplar::program::Copy(v, values, false, {debugContext, "copyValues"}));
  sortKeyValueInPlace(graph, keys, values, dim, prog, debugContext);
  return values;
}

} // namespace popops
