// CircBuf: the entries are the rows of a sliceable [size][elements] tensor; add() advances the
// index with a CircBufIncrIndex vertex and dynamicUpdates the row, prev() computes the row with a
// CircOffset vertex and dynamicSlices it.
#include <popops/CircBuf.hpp>

#include <string>

#include <popops/DynamicSlice.hpp>
#include <poputil/exceptions.hpp>

namespace popops {

namespace {
std::size_t product(const std::vector<std::size_t> &shape) {
  std::size_t n = 1;
  for (auto d : shape)
    n *= d;
  return n;
}
} // namespace

CircBuf::CircBuf(poplar::Graph &graph, const poplar::Type &dataType, unsigned size,
                 const std::vector<std::size_t> &shape, const poplar::DebugContext &debugContext)
    : graph(graph), size_(size), shape(shape) {
  if (size == 0)
    throw poputil::poplibs_error("popops::CircBuf: size must be at least 1");
  hist = createSliceableTensor(graph, dataType, {size, product(shape)}, {0}, {1}, 0,
                               {debugContext, "CircBuf"});
  index = graph.addVariable(poplar::UNSIGNED_INT, {1}, {debugContext, "CircBufIndex"});
  graph.setTileMapping(index, 0);
  graph.setInitialValue(index, 0u);
}

poplar::Tensor CircBuf::prev(unsigned i, poplar::program::Sequence &seq,
                             const poplar::DebugContext &debugContext) {
  if (i >= size_)
    throw poputil::poplibs_error("popops::CircBuf::prev: i = " + std::to_string(i) +
                                 " must be below the buffer size " + std::to_string(size_));
  poplar::Tensor position =
      graph.addVariable(poplar::UNSIGNED_INT, {1}, {debugContext, "position"});
  graph.setTileMapping(position, 0);
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, "CircOffset"});
  auto v = graph.addVertex(cs, "popops::CircOffset",
                           {{"index", index.reshape({})}, {"out", position.reshape({})}});
  graph.setInitialValue(v["hSize"], size_);
  graph.setInitialValue(v["offset"], i);
  graph.setTileMapping(v, 0);
  seq.add(poplar::program::Execute(cs, {debugContext, "CircOffset"}));
  return dynamicSlice(graph, hist, position, {0}, {1}, seq, {debugContext, "CircBufPrev"})
      .reshape(shape);
}

void CircBuf::add(poplar::Tensor t, poplar::program::Sequence &seq,
                  const poplar::DebugContext &debugContext) {
  if (t.elementType() != hist.elementType())
    throw poputil::poplibs_error("popops::CircBuf::add: t is " + t.shortString() +
                                 ", expected the buffer's type " + hist.elementType().toString());
  if (t.numElements() != hist.dim(1))
    throw poputil::poplibs_error("popops::CircBuf::add: t " + t.shortString() + " has " +
                                 std::to_string(t.numElements()) + " elements, expected " +
                                 std::to_string(hist.dim(1)));
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, "CircBufIncrIndex"});
  auto v = graph.addVertex(cs, "popops::CircBufIncrIndex", {{"index", index.reshape({})}});
  graph.setInitialValue(v["hSize"], size_);
  graph.setTileMapping(v, 0);
  seq.add(poplar::program::Execute(cs, {debugContext, "CircBufIncrIndex"}));
  dynamicUpdate(graph, hist, t.flatten().expand({0}), index, {0}, {1}, seq,
                {debugContext, "CircBufAdd"});
}

poplar::Tensor CircBuf::getIndex() const { return index; }

unsigned CircBuf::size() const { return size_; }

poplar::Graph::TileToTensorMapping CircBuf::getTileMapping() {
  return graph.getTileMapping(hist[0].reshape(shape));
}

} // namespace popops
