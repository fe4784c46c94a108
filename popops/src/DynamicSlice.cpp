// dynamicSlice/Update and multiSlice/Update/UpdateAdd/UpdateMax/UpdateMul: argument checks,
// the [rows][columns] views, and one compute set of row vertices (SliceCommon) per sliced
// dimension.
#include <popops/DynamicSlice.hpp>

#include <poputil/Describe.hpp>
#include <poputil/exceptions.hpp>

#include "SliceChecks.hpp"
#include "SliceCommon.hpp"
#include "SliceMulti.hpp"

namespace popops {

namespace {

/// One dimension of a dynamic slice: a new tensor holding t[offset : offset+size] along dim.
poplar::Tensor sliceOneDim(poplar::Graph &graph, const poplar::Tensor &t,
                           const poplar::Tensor &offset, unsigned dim, std::size_t size,
                           unsigned mode, poplar::program::Sequence &prog,
                           const poplar::DebugContext &dc) {
  const poplar::Tensor base2d = detail::rowsView(t, dim);
  const auto groups = detail::columnGroupsOf(graph, base2d);
  const poplar::Tensor out2d =
      detail::createColumnGrouped(graph, t.elementType(), size, groups, {dc, "slice"});
  poplar::ComputeSet cs = graph.addComputeSet({dc, "DynamicSlice"});
  detail::addRowVertices(graph, cs, detail::RowOp::Slice, base2d, out2d, offset, size, mode,
                         nullptr);
  prog.add(poplar::program::Execute(cs, {dc, "DynamicSlice"}));
  return detail::fromRowsView(out2d, t.shape(), dim);
}

void updateOneDim(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                  const poplar::Tensor &offset, unsigned dim, unsigned mode,
                  poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  poplar::ComputeSet cs = graph.addComputeSet({dc, "DynamicUpdate"});
  detail::addRowVertices(graph, cs, detail::RowOp::Update, detail::rowsView(t, dim),
                         detail::rowsView(s, dim), offset, s.dim(dim), mode, nullptr);
  prog.add(poplar::program::Execute(cs, {dc, "DynamicUpdate"}));
}

/// The offsets of a dynamicSlice/Update as [dims.size()]: `offset` itself, or the first column
/// of an [dims.size()][copies] offset (PopLibs' one copy per tile; every copy holds the same
/// values by contract).
poplar::Tensor offsetVector(const poplar::Tensor &offset) {
  if (offset.rank() == 2 && offset.dim(1) > 1)
    return offset.slice(0, 1, 1).flatten();
  return offset.flatten();
}

/// Checks a dynamicSlice/Update call; returns the vertex index mode (wrapping, plus the
/// options' bits).
unsigned checkDynamicArgs(const std::string &fn, const poplar::Tensor &t,
                          const poplar::Tensor &offset, const std::vector<std::size_t> &dims,
                          const std::vector<std::size_t> &sizes,
                          const poplar::OptionFlags &options) {
  const unsigned mode = detail::kIndexWrap | detail::indexModeFromOptions(fn, options);
  detail::checkSliceableType(fn, t, "tensor");
  detail::checkDimsSizes(fn, t, dims, sizes);
  detail::checkOffsetType(fn, offset);
  const bool perTile = offset.rank() == 2 && offset.dim(0) == dims.size() && offset.dim(1) > 0;
  if (!perTile && offset.numElements() != dims.size())
    throw poputil::poplibs_error(fn + ": offset " + poputil::describe(offset) +
                                 " must have one element per dim (" + std::to_string(dims.size()) +
                                 "), optionally with a second dimension of copies, slicing " +
                                 poputil::describe(t));
  return mode;
}

void updateDims(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                const poplar::Tensor &offset, const std::vector<std::size_t> &dims,
                const std::vector<std::size_t> &sizes, std::size_t first, unsigned mode,
                poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  const unsigned dim = static_cast<unsigned>(dims[first]);
  const poplar::Tensor off = offset.slice(first, first + 1);
  if (first + 1 == dims.size()) {
    updateOneDim(graph, t, s, off, dim, mode, prog, dc);
    return;
  }
  // Read the band along this dim, update it along the remaining dims, write it back.
  poplar::Tensor band = sliceOneDim(graph, t, off, dim, sizes[first], mode, prog, dc);
  updateDims(graph, band, s, offset, dims, sizes, first + 1, mode, prog, dc);
  updateOneDim(graph, t, band, off, dim, mode, prog, dc);
}

/// multiUpdate, multiUpdateMax and multiUpdateMul: checks and one compute set.
void multiUpdateOp(const std::string &fn, detail::RowOp op, poplar::Graph &graph,
                   const poplar::Tensor &t, const poplar::Tensor &s, const poplar::Tensor &offsets,
                   const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                   poplar::program::Sequence &prog, const poplar::OptionFlags &options,
                   const poplar::DebugContext &debugContext, const char *csName) {
  const auto a = detail::checkMultiArgs(fn, t, offsets, dims, sizes, options);
  detail::checkSliceShape(fn, t, s, detail::multiSliceShape(t, a));
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, csName});
  detail::addMultiUpdateVertices(graph, cs, op, t, s, a, nullptr);
  prog.add(poplar::program::Execute(cs, {debugContext, csName}));
}

/// A constant UNSIGNED_INT [n] tensor of host-known offsets, on tile 0.
poplar::Tensor constantOffsets(poplar::Graph &graph, poplar::ArrayRef<unsigned> offsets,
                               const poplar::DebugContext &dc) {
  poplar::Tensor c =
      graph.addConstant(poplar::UNSIGNED_INT, {offsets.size()}, offsets, {dc, "offsets"});
  graph.setTileMapping(c, 0);
  return c;
}

} // namespace

namespace detail {

MultiArgs checkMultiArgs(const std::string &fn, const poplar::Tensor &t,
                         const poplar::Tensor &offsets, const std::vector<std::size_t> &dims,
                         const std::vector<std::size_t> &sizes,
                         const poplar::OptionFlags &options) {
  const unsigned mode = detail::indexModeFromOptions(fn, options);
  detail::checkSliceableType(fn, t, "tensor");
  detail::checkDimsSizes(fn, t, dims, sizes);
  if (dims.size() != 1)
    throw poputil::poplibs_error(fn + ": slicing " + poputil::describe(t) +
                                 " supports exactly one dim, got " + std::to_string(dims.size()));
  detail::checkOffsetType(fn, offsets);
  if (!(offsets.rank() == 1 || (offsets.rank() == 2 && offsets.dim(1) == 1)))
    throw poputil::poplibs_error(fn + ": offsets " + poputil::describe(offsets) +
                                 " must have shape [numOffsets][1] or [numOffsets]");
  if (t.dim(dims[0]) == 0)
    throw poputil::poplibs_error(fn + ": dimension " + std::to_string(dims[0]) + " of " +
                                 poputil::describe(t) + " is empty");
  return {static_cast<unsigned>(dims[0]), sizes[0], offsets.flatten(), mode};
}

std::vector<std::size_t> multiSliceShape(const poplar::Tensor &t, const MultiArgs &a) {
  std::vector<std::size_t> shape{a.offsets.numElements()};
  for (std::size_t d = 0; d < t.rank(); ++d)
    shape.push_back(d == a.dim ? a.size : t.dim(d));
  return shape;
}

void checkScale(const std::string &fn, const poplar::Tensor &t, const poplar::Tensor &scale) {
  // As PopLibs: the scale has t's type, except that a HALF t also takes a FLOAT scale.
  const bool floatScaleForHalf =
      t.elementType() == poplar::HALF && scale.elementType() == poplar::FLOAT;
  if (scale.numElements() != 1 || (scale.elementType() != t.elementType() && !floatScaleForHalf))
    throw poputil::poplibs_error(fn + ": scale " + poputil::describe(scale) +
                                 " must be one element of " + t.elementType().toString() +
                                 " (the type of " + poputil::describe(t) + ")" +
                                 (t.elementType() == poplar::HALF ? " or FLOAT" : ""));
  // Both multiply-add in float; a FLOAT scale keeps its precision (its own vertex variant).
}

void addMultiSliceVertices(poplar::Graph &graph, poplar::ComputeSet cs, const poplar::Tensor &t,
                           const poplar::Tensor &out2d, const MultiArgs &a) {
  addRowVertices(graph, cs, RowOp::Slice, rowsView(t, a.dim), out2d, a.offsets, a.size, a.indexMode,
                 nullptr);
}

void addMultiUpdateVertices(poplar::Graph &graph, poplar::ComputeSet cs, RowOp op,
                            const poplar::Tensor &t, const poplar::Tensor &s, const MultiArgs &a,
                            const poplar::Tensor *scale) {
  addRowVertices(graph, cs, op, rowsView(t, a.dim), sliceRowsView(s, a.dim), a.offsets, a.size,
                 a.indexMode, scale);
}

} // namespace detail

poplar::Tensor dynamicSlice(poplar::Graph &graph, const poplar::Tensor &t,
                            const poplar::Tensor &offset, const std::vector<std::size_t> &dims,
                            const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                            const poplar::DebugContext &debugContext,
                            const poplar::OptionFlags &options) {
  const unsigned mode = checkDynamicArgs("popops::dynamicSlice", t, offset, dims, sizes, options);
  poplar::Tensor result = t;
  for (std::size_t i = 0; i < dims.size(); ++i)
    result = sliceOneDim(graph, result, offsetVector(offset).slice(i, i + 1),
                         static_cast<unsigned>(dims[i]), sizes[i], mode, prog, debugContext);
  return result;
}

void dynamicSliceWithOutput(poplar::Graph &graph, const poplar::Tensor &output,
                            const poplar::Tensor &t, const poplar::Tensor &offset,
                            const std::vector<std::size_t> &dims,
                            const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                            const poplar::DebugContext &debugContext,
                            const poplar::OptionFlags &options) {
  const std::string fn = "popops::dynamicSliceWithOutput";
  checkDynamicArgs(fn, t, offset, dims, sizes, options);
  std::vector<std::size_t> expected = t.shape();
  for (std::size_t i = 0; i < dims.size(); ++i)
    expected[dims[i]] = sizes[i];
  detail::checkSliceShape(fn, t, output, expected);
  const poplar::Tensor slice =
      dynamicSlice(graph, t, offset, dims, sizes, prog, debugContext, options);
  prog.add(poplar::program::Copy(slice, output, false, {debugContext, "output"}));
}

poplar::Graph::TileToTensorMapping getSliceMapping(poplar::Graph &graph, const poplar::Tensor &t,
                                                   const std::vector<std::size_t> &dims,
                                                   const std::vector<std::size_t> &sizes) {
  const std::string fn = "popops::getSliceMapping";
  detail::checkDimsSizes(fn, t, dims, sizes);
  // The slice's element i (row-major in its own shape) sits where dynamicSlice puts it: with
  // the tile holding that element's columns (all coordinates outside dims) in t's slice
  // starting at 0 along every dim in dims.
  std::vector<std::size_t> sliceShape = t.shape();
  for (std::size_t i = 0; i < dims.size(); ++i)
    sliceShape[dims[i]] = sizes[i];
  poplar::Tensor view = t;
  for (std::size_t i = 0; i < dims.size(); ++i)
    view = view.slice(0, 1, static_cast<unsigned>(dims[i]));
  const auto viewMapping = graph.getTileMapping(view);
  std::vector<unsigned> tileOf(view.numElements(), 0);
  for (unsigned tile = 0; tile < viewMapping.size(); ++tile)
    for (const auto &iv : viewMapping[tile])
      for (std::size_t e = iv.begin(); e < iv.end(); ++e)
        tileOf[e] = tile;
  // Walk the slice's elements, dropping the coordinates along dims to index the view.
  poplar::Graph::TileToTensorMapping mapping(graph.getTarget().getNumTiles());
  std::vector<bool> sliced(t.rank(), false);
  for (auto d : dims)
    sliced[d] = true;
  std::size_t n = 1;
  for (auto d : sliceShape)
    n *= d;
  std::vector<std::size_t> coord(t.rank(), 0);
  for (std::size_t e = 0; e < n; ++e) {
    std::size_t viewIndex = 0;
    for (std::size_t d = 0; d < t.rank(); ++d)
      viewIndex = viewIndex * (sliced[d] ? 1 : t.dim(d)) + (sliced[d] ? 0 : coord[d]);
    auto &intervals = mapping[tileOf[viewIndex]];
    if (!intervals.empty() && intervals.back().end() == e)
      intervals.back() = poplar::Interval(intervals.back().begin(), e + 1);
    else
      intervals.emplace_back(e, e + 1);
    for (std::size_t d = t.rank(); d-- > 0;) {
      if (++coord[d] < sliceShape[d])
        break;
      coord[d] = 0;
    }
  }
  return mapping;
}

void dynamicUpdate(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                   const poplar::Tensor &offset, const std::vector<std::size_t> &dims,
                   const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                   const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  const std::string fn = "popops::dynamicUpdate";
  const unsigned mode = checkDynamicArgs(fn, t, offset, dims, sizes, options);
  std::vector<std::size_t> expected = t.shape();
  for (std::size_t i = 0; i < dims.size(); ++i)
    expected[dims[i]] = sizes[i];
  detail::checkSliceShape(fn, t, s, expected);
  if (dims.empty())
    return;
  updateDims(graph, t, s, offsetVector(offset), dims, sizes, 0, mode, prog, debugContext);
}

poplar::Tensor multiSlice(poplar::Graph &graph, const poplar::Tensor &t,
                          const poplar::Tensor &offsets, const std::vector<std::size_t> &dims,
                          const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                          const SlicePlan &, const poplar::OptionFlags &options,
                          const poplar::DebugContext &debugContext) {
  const auto a = detail::checkMultiArgs("popops::multiSlice", t, offsets, dims, sizes, options);
  const std::size_t n = a.offsets.numElements();
  const poplar::Tensor out2d = detail::createColumnGrouped(
      graph, t.elementType(), n * a.size, detail::columnGroupsOf(graph, detail::rowsView(t, a.dim)),
      {debugContext, "slices"});
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, "MultiSlice"});
  detail::addMultiSliceVertices(graph, cs, t, out2d, a);
  prog.add(poplar::program::Execute(cs, {debugContext, "MultiSlice"}));
  return detail::sliceTensorFromRows(out2d, n, a.size, t.shape(), a.dim);
}

poplar::Tensor multiSlice(poplar::Graph &graph, const poplar::Tensor &t,
                          poplar::ArrayRef<unsigned> offsets, std::size_t dim,
                          poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                          const poplar::OptionFlags &optionFlags) {
  return multiSlice(graph, t, constantOffsets(graph, offsets, debugContext), {dim}, {1}, prog,
                    SlicePlan(), optionFlags, debugContext);
}

void multiUpdate(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &sMulti,
                 const poplar::Tensor &offsets, const std::vector<std::size_t> &dims,
                 const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                 const SlicePlan &, const poplar::OptionFlags &options,
                 const poplar::DebugContext &debugContext) {
  multiUpdateOp("popops::multiUpdate", detail::RowOp::Update, graph, t, sMulti, offsets, dims,
                sizes, prog, options, debugContext, "MultiUpdate");
}

void multiUpdateMax(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                    const poplar::Tensor &offsets, const std::vector<std::size_t> &dims,
                    const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                    const SlicePlan &, const poplar::OptionFlags &options,
                    const poplar::DebugContext &debugContext) {
  multiUpdateOp("popops::multiUpdateMax", detail::RowOp::UpdateMax, graph, t, s, offsets, dims,
                sizes, prog, options, debugContext, "MultiUpdateMax");
}

void multiUpdateMul(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                    const poplar::Tensor &offsets, const std::vector<std::size_t> &dims,
                    const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                    const SlicePlan &, const poplar::OptionFlags &options,
                    const poplar::DebugContext &debugContext) {
  multiUpdateOp("popops::multiUpdateMul", detail::RowOp::UpdateMul, graph, t, s, offsets, dims,
                sizes, prog, options, debugContext, "MultiUpdateMul");
}

void multiUpdateAdd(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &sMulti,
                    const poplar::Tensor &offsets, const poplar::Tensor &scale,
                    const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                    poplar::program::Sequence &prog, const SlicePlan &,
                    const poplar::OptionFlags &options, const poplar::DebugContext &debugContext) {
  const std::string fn = "popops::multiUpdateAdd";
  const auto a = detail::checkMultiArgs(fn, t, offsets, dims, sizes, options);
  detail::checkSliceShape(fn, t, sMulti, detail::multiSliceShape(t, a));
  detail::checkScale(fn, t, scale);
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, "MultiUpdateAdd"});
  detail::addMultiUpdateVertices(graph, cs, detail::RowOp::UpdateAdd, t, sMulti, a, &scale);
  prog.add(poplar::program::Execute(cs, {debugContext, "MultiUpdateAdd"}));
}

void multiUpdateAdd(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                    poplar::ArrayRef<unsigned> offsets, const poplar::Tensor &scale,
                    std::size_t dim, poplar::program::Sequence &prog,
                    const poplar::DebugContext &debugContext,
                    const poplar::OptionFlags &optionFlags) {
  multiUpdateAdd(graph, t, s, constantOffsets(graph, offsets, debugContext), scale, {dim}, {1},
                 prog, SlicePlan(), optionFlags, debugContext);
}

} // namespace popops
