// dynamicSlice/Update and multiSlice/Update/UpdateAdd: argument checks, the [rows][columns]
// views, and one compute set of row vertices (SliceCommon) per sliced dimension.
#include <popops/DynamicSlice.hpp>

#include <popops/Cast.hpp>

#include <poputil/Describe.hpp>
#include <poputil/exceptions.hpp>

#include "SliceChecks.hpp"
#include "SliceCommon.hpp"

namespace popops {

namespace {

/// One dimension of a dynamic slice: a new tensor holding t[offset : offset+size] along dim.
poplar::Tensor sliceOneDim(poplar::Graph &graph, const poplar::Tensor &t,
                           const poplar::Tensor &offset, unsigned dim, std::size_t size,
                           poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  const poplar::Tensor base2d = detail::rowsView(t, dim);
  const auto groups = detail::columnGroupsOf(graph, base2d);
  const poplar::Tensor out2d =
      detail::createColumnGrouped(graph, t.elementType(), size, groups, {dc, "slice"});
  poplar::ComputeSet cs = graph.addComputeSet({dc, "DynamicSlice"});
  detail::addRowVertices(graph, cs, detail::RowOp::Slice, base2d, out2d, offset, size, true,
                         nullptr);
  prog.add(poplar::program::Execute(cs, {dc, "DynamicSlice"}));
  return detail::fromRowsView(out2d, t.shape(), dim);
}

void updateOneDim(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                  const poplar::Tensor &offset, unsigned dim, poplar::program::Sequence &prog,
                  const poplar::DebugContext &dc) {
  poplar::ComputeSet cs = graph.addComputeSet({dc, "DynamicUpdate"});
  detail::addRowVertices(graph, cs, detail::RowOp::Update, detail::rowsView(t, dim),
                         detail::rowsView(s, dim), offset, s.dim(dim), true, nullptr);
  prog.add(poplar::program::Execute(cs, {dc, "DynamicUpdate"}));
}

void checkDynamicArgs(const std::string &fn, const poplar::Tensor &t, const poplar::Tensor &offset,
                      const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes) {
  detail::checkSliceableType(fn, t, "tensor");
  detail::checkDimsSizes(fn, t, dims, sizes);
  detail::checkOffsetType(fn, offset);
  if (offset.numElements() != dims.size())
    throw poputil::poplibs_error(fn + ": offset " + poputil::describe(offset) +
                                 " must have one element per dim (" + std::to_string(dims.size()) +
                                 ") slicing " + poputil::describe(t));
}

void updateDims(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                const poplar::Tensor &offset, const std::vector<std::size_t> &dims,
                const std::vector<std::size_t> &sizes, std::size_t first,
                poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  const unsigned dim = static_cast<unsigned>(dims[first]);
  const poplar::Tensor off = offset.slice(first, first + 1);
  if (first + 1 == dims.size()) {
    updateOneDim(graph, t, s, off, dim, prog, dc);
    return;
  }
  // Read the band along this dim, update it along the remaining dims, write it back.
  poplar::Tensor band = sliceOneDim(graph, t, off, dim, sizes[first], prog, dc);
  updateDims(graph, band, s, offset, dims, sizes, first + 1, prog, dc);
  updateOneDim(graph, t, band, off, dim, prog, dc);
}

struct MultiArgs {
  unsigned dim;
  std::size_t size;
  poplar::Tensor offsets; // [numOffsets]
};

MultiArgs checkMultiArgs(const std::string &fn, const poplar::Tensor &t,
                         const poplar::Tensor &offsets, const std::vector<std::size_t> &dims,
                         const std::vector<std::size_t> &sizes,
                         const poplar::OptionFlags &options) {
  detail::checkSliceOptions(fn, options);
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
  return {static_cast<unsigned>(dims[0]), sizes[0], offsets.flatten()};
}

std::vector<std::size_t> multiSliceShape(const poplar::Tensor &t, const MultiArgs &a) {
  std::vector<std::size_t> shape{a.offsets.numElements()};
  for (std::size_t d = 0; d < t.rank(); ++d)
    shape.push_back(d == a.dim ? a.size : t.dim(d));
  return shape;
}

} // namespace

poplar::Tensor dynamicSlice(poplar::Graph &graph, const poplar::Tensor &t,
                            const poplar::Tensor &offset, const std::vector<std::size_t> &dims,
                            const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                            const poplar::DebugContext &debugContext) {
  checkDynamicArgs("popops::dynamicSlice", t, offset, dims, sizes);
  poplar::Tensor result = t;
  for (std::size_t i = 0; i < dims.size(); ++i)
    result = sliceOneDim(graph, result, offset.flatten().slice(i, i + 1),
                         static_cast<unsigned>(dims[i]), sizes[i], prog, debugContext);
  return result;
}

void dynamicSliceWithOutput(poplar::Graph &graph, const poplar::Tensor &output,
                            const poplar::Tensor &t, const poplar::Tensor &offset,
                            const std::vector<std::size_t> &dims,
                            const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                            const poplar::DebugContext &debugContext) {
  const std::string fn = "popops::dynamicSliceWithOutput";
  checkDynamicArgs(fn, t, offset, dims, sizes);
  std::vector<std::size_t> expected = t.shape();
  for (std::size_t i = 0; i < dims.size(); ++i)
    expected[dims[i]] = sizes[i];
  detail::checkSliceShape(fn, t, output, expected);
  const poplar::Tensor slice = dynamicSlice(graph, t, offset, dims, sizes, prog, debugContext);
  prog.add(poplar::program::Copy(slice, output, false, {debugContext, "output"}));
}

void dynamicUpdate(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                   const poplar::Tensor &offset, const std::vector<std::size_t> &dims,
                   const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                   const poplar::DebugContext &debugContext) {
  const std::string fn = "popops::dynamicUpdate";
  checkDynamicArgs(fn, t, offset, dims, sizes);
  std::vector<std::size_t> expected = t.shape();
  for (std::size_t i = 0; i < dims.size(); ++i)
    expected[dims[i]] = sizes[i];
  detail::checkSliceShape(fn, t, s, expected);
  if (dims.empty())
    return;
  updateDims(graph, t, s, offset.flatten(), dims, sizes, 0, prog, debugContext);
}

poplar::Tensor multiSlice(poplar::Graph &graph, const poplar::Tensor &t,
                          const poplar::Tensor &offsets, const std::vector<std::size_t> &dims,
                          const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                          const SlicePlan &, const poplar::OptionFlags &options,
                          const poplar::DebugContext &debugContext) {
  const auto a = checkMultiArgs("popops::multiSlice", t, offsets, dims, sizes, options);
  const poplar::Tensor base2d = detail::rowsView(t, a.dim);
  const std::size_t n = a.offsets.numElements();
  const poplar::Tensor out2d =
      detail::createColumnGrouped(graph, t.elementType(), n * a.size,
                                  detail::columnGroupsOf(graph, base2d), {debugContext, "slices"});
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, "MultiSlice"});
  detail::addRowVertices(graph, cs, detail::RowOp::Slice, base2d, out2d, a.offsets, a.size, false,
                         nullptr);
  prog.add(poplar::program::Execute(cs, {debugContext, "MultiSlice"}));
  return detail::sliceTensorFromRows(out2d, n, a.size, t.shape(), a.dim);
}

void multiUpdate(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &sMulti,
                 const poplar::Tensor &offsets, const std::vector<std::size_t> &dims,
                 const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                 const SlicePlan &, const poplar::OptionFlags &options,
                 const poplar::DebugContext &debugContext) {
  const std::string fn = "popops::multiUpdate";
  const auto a = checkMultiArgs(fn, t, offsets, dims, sizes, options);
  detail::checkSliceShape(fn, t, sMulti, multiSliceShape(t, a));
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, "MultiUpdate"});
  detail::addRowVertices(graph, cs, detail::RowOp::Update, detail::rowsView(t, a.dim),
                         detail::sliceRowsView(sMulti, a.dim), a.offsets, a.size, false, nullptr);
  prog.add(poplar::program::Execute(cs, {debugContext, "MultiUpdate"}));
}

void multiUpdateAdd(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &sMulti,
                    const poplar::Tensor &offsets, const poplar::Tensor &scale,
                    const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                    poplar::program::Sequence &prog, const SlicePlan &,
                    const poplar::OptionFlags &options, const poplar::DebugContext &debugContext) {
  const std::string fn = "popops::multiUpdateAdd";
  const auto a = checkMultiArgs(fn, t, offsets, dims, sizes, options);
  detail::checkSliceShape(fn, t, sMulti, multiSliceShape(t, a));
  // As PopLibs: the scale has t's type, except that a HALF t also takes a FLOAT scale.
  const bool floatScaleForHalf =
      t.elementType() == poplar::HALF && scale.elementType() == poplar::FLOAT;
  if (scale.numElements() != 1 || (scale.elementType() != t.elementType() && !floatScaleForHalf))
    throw poputil::poplibs_error(fn + ": scale " + poputil::describe(scale) +
                                 " must be one element of " + t.elementType().toString() +
                                 " (the type of " + poputil::describe(t) + ")" +
                                 (t.elementType() == poplar::HALF ? " or FLOAT" : ""));
  // The vertex multiplies in float either way; a FLOAT scale is rounded to HALF first.
  const poplar::Tensor vertexScale =
      floatScaleForHalf ? popops::cast(graph, scale, poplar::HALF, prog, {debugContext, "scale"})
                        : scale;
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, "MultiUpdateAdd"});
  detail::addRowVertices(graph, cs, detail::RowOp::UpdateAdd, detail::rowsView(t, a.dim),
                         detail::sliceRowsView(sMulti, a.dim), a.offsets, a.size, false,
                         &vertexScale);
  prog.add(poplar::program::Execute(cs, {debugContext, "MultiUpdateAdd"}));
}

} // namespace popops
