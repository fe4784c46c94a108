// popops::SlicePlan, embedding::plan and the tensor-creation functions that follow a plan.
#include <algorithm>
#include <ostream>

#include <poplar/exceptions.hpp>
#include <popops/DynamicSlice.hpp>
#include <poputil/Describe.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include "SliceChecks.hpp"
#include "SliceCommon.hpp"
#include "SlicePlanInternal.hpp"

namespace popops {

SlicePlan::SlicePlan() = default;
SlicePlan::~SlicePlan() = default;
SlicePlan::SlicePlan(const SlicePlan &other)
    : internal(other.internal ? std::make_unique<SlicePlanInternal>(*other.internal) : nullptr) {}
SlicePlan::SlicePlan(SlicePlan &&other) = default;
SlicePlan &SlicePlan::operator=(const SlicePlan &other) {
  internal = other.internal ? std::make_unique<SlicePlanInternal>(*other.internal) : nullptr;
  return *this;
}
SlicePlan &SlicePlan::operator=(SlicePlan &&other) = default;
SlicePlan::SlicePlan(std::unique_ptr<SlicePlanInternal> i) : internal(std::move(i)) {}

std::ostream &operator<<(std::ostream &o, const SlicePlan &p) {
  if (!p.internal)
    return o << "SlicePlan(none)";
  return o << "SlicePlan(columns=" << p.internal->numColumns << ", grain=" << p.internal->grain
           << ", groups=" << p.internal->numGroups << ")";
}

bool operator==(const SlicePlan &a, const SlicePlan &b) noexcept {
  if (!a.internal || !b.internal)
    return !a.internal && !b.internal;
  return *a.internal == *b.internal;
}
bool operator!=(const SlicePlan &a, const SlicePlan &b) noexcept { return !(a == b); }

namespace {

std::size_t defaultGrain(const poplar::Graph &graph, const poplar::Type &type) {
  return std::max<std::size_t>(1, graph.getTarget().getVectorWidth(type));
}

/// Column groups for slicing `shape` along `dim`, following `plan` when it has one.
std::vector<detail::ColumnGroup> groupsFor(const poplar::Graph &graph, const poplar::Type &type,
                                           const std::vector<std::size_t> &shape, unsigned dim,
                                           std::size_t minGrainSize, const SlicePlan &plan) {
  std::size_t columns = 1;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (d != dim)
      columns *= shape[d];
  const unsigned tiles = graph.getTarget().getNumTiles();
  if (const auto *p = plan.getImplPtr())
    return detail::evenColumnGroups(columns, p->grain, std::min(p->numGroups, tiles));
  const std::size_t grain = minGrainSize ? minGrainSize : defaultGrain(graph, type);
  return detail::evenColumnGroups(columns, grain, tiles);
}

poplar::Tensor createSliceable(poplar::Graph &graph, const poplar::Type &type,
                               const std::vector<std::size_t> &shape,
                               const std::vector<std::size_t> &dims,
                               const std::vector<std::size_t> &sizes, std::size_t minGrainSize,
                               const SlicePlan &plan, const poplar::DebugContext &debugContext) {
  const std::string fn = "popops::createSliceableTensor";
  detail::checkSliceableType(fn, type);
  detail::checkShapeDimsSizes(fn, shape, dims, sizes);
  if (dims.size() != 1) {
    poplar::Tensor t = graph.addVariable(type, shape, debugContext);
    poputil::mapTensorLinearly(graph, t);
    return t;
  }
  const unsigned dim = static_cast<unsigned>(dims[0]);
  const auto groups = groupsFor(graph, type, shape, dim, minGrainSize, plan);
  const poplar::Tensor rows2d =
      detail::createColumnGrouped(graph, type, shape[dim], groups, debugContext);
  return detail::fromRowsView(rows2d, shape, dim);
}

} // namespace

poplar::Tensor createSliceableTensor(poplar::Graph &graph, const poplar::Type &type,
                                     const std::vector<std::size_t> &shape,
                                     const std::vector<std::size_t> &dims,
                                     const std::vector<std::size_t> &sizes,
                                     std::size_t minGrainSize,
                                     const poplar::DebugContext &debugContext) {
  return createSliceable(graph, type, shape, dims, sizes, minGrainSize, SlicePlan(), debugContext);
}

poplar::Tensor createSliceableTensor(poplar::Graph &graph, const poplar::Type &type,
                                     const std::vector<std::size_t> &shape,
                                     const std::vector<std::size_t> &dims,
                                     const std::vector<std::size_t> &sizes, const SlicePlan &plan,
                                     const poplar::OptionFlags &options,
                                     const poplar::DebugContext &debugContext) {
  detail::checkSliceOptions("popops::createSliceableTensor", options);
  return createSliceable(graph, type, shape, dims, sizes, 0, plan, debugContext);
}

poplar::Tensor createSliceTensor(poplar::Graph &graph, const poplar::Tensor &t,
                                 const std::vector<std::size_t> &dims,
                                 const std::vector<std::size_t> &sizes, std::size_t numIndices,
                                 const poplar::DebugContext &debugContext) {
  const std::string fn = "popops::createSliceTensor";
  detail::checkSliceableType(fn, t, "tensor");
  detail::checkDimsSizes(fn, t, dims, sizes);
  if (dims.size() != 1)
    throw poputil::poplibs_error(fn + ": slicing " + poputil::describe(t) +
                                 " needs exactly one dim, got " + std::to_string(dims.size()));
  const unsigned dim = static_cast<unsigned>(dims[0]);
  const auto groups = detail::columnGroupsOf(graph, detail::rowsView(t, dim));
  const poplar::Tensor rows2d = detail::createColumnGrouped(
      graph, t.elementType(), numIndices * sizes[0], groups, debugContext);
  return detail::sliceTensorFromRows(rows2d, numIndices, sizes[0], t.shape(), dim);
}

poplar::Tensor createSliceTensor(poplar::Graph &graph, const poplar::Type &type,
                                 const std::vector<std::size_t> &shape,
                                 const std::vector<std::size_t> &dims,
                                 const std::vector<std::size_t> &sizes, std::size_t numIndices,
                                 const SlicePlan &plan, const poplar::OptionFlags &options,
                                 const poplar::DebugContext &debugContext) {
  detail::checkSliceOptions("popops::createSliceTensor", options);
  const std::string fn = "popops::createSliceTensor";
  detail::checkSliceableType(fn, type);
  detail::checkShapeDimsSizes(fn, shape, dims, sizes);
  if (dims.size() != 1)
    throw poputil::poplibs_error(fn + ": needs exactly one dim, got " +
                                 std::to_string(dims.size()));
  const unsigned dim = static_cast<unsigned>(dims[0]);
  const auto groups = groupsFor(graph, type, shape, dim, 0, plan);
  const poplar::Tensor rows2d =
      detail::createColumnGrouped(graph, type, numIndices * sizes[0], groups, debugContext);
  return detail::sliceTensorFromRows(rows2d, numIndices, sizes[0], shape, dim);
}

poplar::Tensor createIndicesTensor(poplar::Graph &graph, const std::vector<std::size_t> &dims,
                                   std::size_t numIndices, const SlicePlan &,
                                   const poplar::OptionFlags &options,
                                   const poplar::DebugContext &debugContext) {
  detail::checkSliceOptions("popops::createIndicesTensor", options);
  poplar::Tensor t =
      graph.addVariable(poplar::UNSIGNED_INT, {numIndices, dims.size()}, debugContext);
  poputil::mapTensorLinearly(graph, t);
  return t;
}

namespace embedding {

SlicePlan plan(const poplar::Graph &graph, const poplar::Type &dataType, std::size_t numEntries,
               std::size_t outputSize, const std::vector<std::size_t> &numLookups,
               const poplar::OptionFlags &options) {
  if (!detail::checkSliceOptions("popops::embedding::plan", options))
    throw poputil::poplibs_error("popops::embedding::plan: usedForSlice and usedForUpdate are "
                                 "both false, so the plan is for nothing");
  detail::checkSliceableType("popops::embedding::plan", dataType);
  (void)numLookups;
  (void)numEntries;
  auto p = std::make_unique<SlicePlanInternal>();
  p->numColumns = outputSize;
  p->grain = defaultGrain(graph, dataType);
  const std::size_t grains = (outputSize + p->grain - 1) / p->grain;
  p->numGroups = static_cast<unsigned>(
      std::max<std::size_t>(1, std::min<std::size_t>(grains, graph.getTarget().getNumTiles())));
  return SlicePlan(std::move(p));
}

} // namespace embedding

} // namespace popops
