// popops::SlicePlan, embedding::plan(Multiple) and the tensor-creation functions that follow a
// plan (grouped ones too) or a slice.
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
  return o << "SlicePlan(groupSize=" << p.internal->groupSize
           << ", columns=" << p.internal->numColumns << ", grain=" << p.internal->grain
           << ", columnGroups=" << p.internal->numGroups
           << ", tilesPerGroup=" << p.internal->tilesPerGroup << ")";
}

bool operator<(const SlicePlan &a, const SlicePlan &b) noexcept {
  if (!a.internal || !b.internal)
    return !a.internal && b.internal;
  return *a.internal < *b.internal;
}

bool operator==(const SlicePlan &a, const SlicePlan &b) noexcept {
  if (!a.internal || !b.internal)
    return !a.internal && !b.internal;
  return *a.internal == *b.internal;
}
bool operator!=(const SlicePlan &a, const SlicePlan &b) noexcept { return !(a == b); }

namespace {

const SlicePlanInternal &groupedPlan(const std::string &fn, const SlicePlan &plan,
                                     std::size_t groupSize) {
  const auto *p = plan.getImplPtr();
  if (!p)
    throw poputil::poplibs_error(fn +
                                 ": plan is empty; the grouped functions need a plan from "
                                 "embedding::plan with groupSize " +
                                 std::to_string(groupSize));
  if (p->groupSize != groupSize)
    throw poputil::poplibs_error(fn + ": groupSize " + std::to_string(groupSize) +
                                 " does not match the plan's groupSize " +
                                 std::to_string(p->groupSize));
  return *p;
}

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
    return detail::evenColumnGroups(columns, p->grain, std::min(p->numGroups, tiles), 0, tiles);
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

/// The column groups of embedding group g under a grouped plan.
std::vector<detail::ColumnGroup> groupColumns(const poplar::Graph &graph,
                                              const std::vector<std::size_t> &shape, unsigned dim,
                                              const SlicePlanInternal &p, std::size_t g) {
  std::size_t columns = 1;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (d != dim)
      columns *= shape[d];
  const unsigned tiles = graph.getTarget().getNumTiles();
  return detail::evenColumnGroups(columns, p.grain, std::min(p.numGroups, tiles),
                                  static_cast<unsigned>(g * p.tilesPerGroup % tiles), tiles);
}

/// [groupSize][rows][shape without dim…] built group by group (rows per group `rows`), each
/// group's columns on its tiles; returned as [groupSize][shape with dim's size = rows].
poplar::Tensor createGrouped(const std::string &fn, poplar::Graph &graph, const poplar::Type &type,
                             std::size_t groupSize, const std::vector<std::size_t> &shape,
                             const std::vector<std::size_t> &dims,
                             const std::vector<std::size_t> &sizes, const SlicePlan &plan,
                             const poplar::OptionFlags &options, std::size_t numIndices,
                             bool slices, const poplar::DebugContext &debugContext) {
  detail::checkSliceOptions(fn, options);
  detail::checkSliceableType(fn, type);
  detail::checkShapeDimsSizes(fn, shape, dims, sizes);
  const auto &p = groupedPlan(fn, plan, groupSize);
  if (dims.size() != 1)
    throw poputil::poplibs_error(fn + ": needs exactly one dim, got " +
                                 std::to_string(dims.size()));
  const unsigned dim = static_cast<unsigned>(dims[0]);
  std::vector<poplar::Tensor> groups;
  for (std::size_t g = 0; g < groupSize; ++g) {
    const auto columns = groupColumns(graph, shape, dim, p, g);
    const std::size_t rows = slices ? numIndices * sizes[0] : shape[dim];
    const poplar::Tensor rows2d =
        detail::createColumnGrouped(graph, type, rows, columns, debugContext);
    groups.push_back((slices ? detail::sliceTensorFromRows(rows2d, numIndices, sizes[0], shape, dim)
                             : detail::fromRowsView(rows2d, shape, dim))
                         .expand({0}));
  }
  if (groups.empty()) {
    std::vector<std::size_t> empty{0};
    if (slices)
      empty.push_back(numIndices);
    for (std::size_t d = 0; d < shape.size(); ++d)
      empty.push_back(slices && d == dim ? sizes[0] : shape[d]);
    return graph.addVariable(type, empty, debugContext);
  }
  return poplar::concat(groups, 0);
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

poplar::Tensor createGroupedSliceableTensor(
    poplar::Graph &graph, const poplar::Type &type, const std::size_t groupSize,
    const std::vector<std::size_t> &shape, const std::vector<std::size_t> &dims,
    const std::vector<std::size_t> &sizes, const SlicePlan &plan,
    const poplar::OptionFlags &options, const poplar::DebugContext &debugContext) {
  return createGrouped("popops::createGroupedSliceableTensor", graph, type, groupSize, shape, dims,
                       sizes, plan, options, 0, false, debugContext);
}

poplar::Tensor createGroupedSliceTensor(
    poplar::Graph &graph, const poplar::Type &type, const std::size_t groupSize,
    const std::vector<std::size_t> &shape, const std::vector<std::size_t> &dims,
    const std::vector<std::size_t> &sizes, const std::size_t numIndices, const SlicePlan &plan,
    const poplar::OptionFlags &options, const poplar::DebugContext &debugContext) {
  return createGrouped("popops::createGroupedSliceTensor", graph, type, groupSize, shape, dims,
                       sizes, plan, options, numIndices, true, debugContext);
}

poplar::Tensor createGroupedIndicesTensor(poplar::Graph &graph, const std::size_t groupSize,
                                          const std::vector<std::size_t> &dims,
                                          const std::size_t numIndices, const SlicePlan &plan,
                                          const poplar::OptionFlags &options,
                                          const poplar::DebugContext &debugContext) {
  const std::string fn = "popops::createGroupedIndicesTensor";
  detail::checkSliceOptions(fn, options);
  groupedPlan(fn, plan, groupSize);
  poplar::Tensor t =
      graph.addVariable(poplar::UNSIGNED_INT, {groupSize, numIndices, dims.size()}, debugContext);
  poputil::mapTensorLinearly(graph, t);
  return t;
}

poplar::Tensor createSliceableTensorFromSlice(poplar::Graph &graph, const poplar::Tensor &s,
                                              const std::vector<std::size_t> &dims,
                                              const std::vector<std::size_t> &numSlices,
                                              const poplar::DebugContext &debugContext) {
  const std::string fn = "popops::createSliceableTensorFromSlice";
  detail::checkSliceableType(fn, s, "slice");
  if (dims.size() != numSlices.size())
    throw poputil::poplibs_error(fn + ": dims (" + std::to_string(dims.size()) +
                                 " entries) and numSlices (" + std::to_string(numSlices.size()) +
                                 " entries) differ in length");
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] >= s.rank())
      throw poputil::poplibs_error(fn + ": dims[" + std::to_string(i) +
                                   "] = " + std::to_string(dims[i]) +
                                   " is out of range for slice " + poputil::describe(s));
    for (std::size_t j = 0; j < i; ++j)
      if (dims[j] == dims[i])
        throw poputil::poplibs_error(fn + ": dim " + std::to_string(dims[i]) +
                                     " appears twice in dims");
  }
  std::vector<std::size_t> fullShape = s.shape();
  for (std::size_t i = 0; i < dims.size(); ++i)
    fullShape[dims[i]] *= numSlices[i];
  if (std::find(numSlices.begin(), numSlices.end(), 0) != numSlices.end())
    return graph.addVariable(s.elementType(), fullShape, debugContext);
  // Repeat the slice numSlices[i] times along dims[i], each copy a clone of s (same tiles, same
  // contiguous regions), so every tile holds the same columns at every slice position.
  poplar::Tensor result = graph.clone(s, debugContext);
  for (std::size_t i = 0; i < dims.size(); ++i) {
    std::vector<poplar::Tensor> copies{result};
    for (std::size_t k = 1; k < numSlices[i]; ++k)
      copies.push_back(graph.clone(result, debugContext));
    result = poplar::concat(copies, static_cast<unsigned>(dims[i]));
  }
  return result;
}

namespace embedding {

SlicePlan plan(const poplar::Graph &graph, const poplar::Type &dataType,
               const std::size_t groupSize, const std::size_t numEntries,
               const std::size_t outputSize, const std::vector<std::size_t> &numLookups,
               const poplar::OptionFlags &options) {
  const std::string fn = "popops::embedding::plan";
  if (!detail::checkSliceOptions(fn, options))
    throw poputil::poplibs_error(fn + ": usedForSlice and usedForUpdate are both false, so the "
                                      "plan is for nothing");
  detail::checkSliceableType(fn, dataType);
  if (groupSize == 0)
    throw poputil::poplibs_error(fn + ": groupSize must be at least 1");
  (void)numLookups;
  (void)numEntries;
  const unsigned tiles = graph.getTarget().getNumTiles();
  auto p = std::make_unique<SlicePlanInternal>();
  p->numColumns = outputSize;
  p->groupSize = groupSize;
  p->grain = defaultGrain(graph, dataType);
  p->tilesPerGroup = static_cast<unsigned>(
      std::max<std::size_t>(1, tiles / std::min<std::size_t>(groupSize, tiles)));
  const std::size_t grains = (outputSize + p->grain - 1) / p->grain;
  p->numGroups = static_cast<unsigned>(
      std::max<std::size_t>(1, std::min<std::size_t>(grains, p->tilesPerGroup)));
  return SlicePlan(std::move(p));
}

SlicePlan plan(const poplar::Graph &graph, const poplar::Type &dataType,
               const std::size_t numEntries, const std::size_t outputSize,
               const std::vector<std::size_t> &numLookups, const poplar::OptionFlags &options) {
  return plan(graph, dataType, 1, numEntries, outputSize, numLookups, options);
}

std::vector<SlicePlan> planMultiple(const std::vector<SlicePlanningParameters> &parameters) {
  std::vector<SlicePlan> plans;
  plans.reserve(parameters.size());
  for (const auto &p : parameters)
    plans.push_back(plan(p.graph, p.dataType, p.groupSize, p.numEntries, p.outputSize, p.numLookups,
                         p.optionFlags));
  return plans;
}

} // namespace embedding

} // namespace popops

namespace poputil {

template <> poplar::ProfileValue toProfileValue(const popops::SlicePlan &p) {
  poplar::ProfileValue::Map m;
  if (const auto *i = p.getImplPtr()) {
    m.emplace("groupSize", poplar::ProfileValue(i->groupSize));
    m.emplace("columns", poplar::ProfileValue(i->numColumns));
    m.emplace("grain", poplar::ProfileValue(i->grain));
    m.emplace("columnGroups", poplar::ProfileValue(i->numGroups));
  }
  return poplar::ProfileValue(std::move(m));
}

} // namespace poputil
