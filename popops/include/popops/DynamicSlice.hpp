// Slicing and updating tensors at offsets read on the device: dynamic slices, embedding
// lookups (multiSlice) and their gradients (multiUpdateAdd).
//
// Layout: every function views the base as [rows of the sliced dimension][columns = all other
// elements] and runs one vertex per (tile, column run) of the base's tile mapping, so vertices
// sit with the data and each sees whole rows of its columns. Tensors from
// createSliceableTensor put each tile's columns (for every row) in one contiguous block, so
// slicing them moves only the offsets and the slices.
//
// Out-of-range offsets have a defined behaviour (never undefined memory access):
//  - dynamicSlice / dynamicUpdate: an offset >= the dimension's size is read as 0, and a slice
//    running past the end wraps round to row 0 (as PopLibs' vertices do).
//  - multiSlice: a slice whose offset + size exceeds the dimension gives zeros.
//  - multiUpdate / multiUpdateAdd: such a slice is ignored (the base is left unchanged).
//  In debug runs (Engine option `debug.runtimeVerify` = "true") such an offset is an error
//  instead: the run stops with poplar::application_runtime_error naming the vertex, compute set
//  and tile and saying that an offset is outside the sliced dimension.
//  Options (PopLibs' keys, taken by every slice function that has an OptionFlags argument):
//  "remapOutOfBoundIndices" = "true": an out-of-range offset is read as 0 instead;
//  "paddingIndexUsed" = "true": offset == the dimension's size is a padding index that slices
//  zeros and updates nothing, and is never reported as out of range;
//  "validateIndices" = "true": an out-of-range offset stops the run with
//  poplar::application_runtime_error, as debug.runtimeVerify does (ignored under remapping).
// Repeated offsets: multiUpdate keeps the last slice; multiUpdateAdd adds, multiUpdateMax takes
// the maximum and multiUpdateMul multiplies by every slice, in offset order, so results are
// deterministic.
//
// Grouped forms (groupedMultiSlice, groupedMultiUpdate*, createGrouped*) run `groupSize`
// independent slices/updates in one compute set: every tensor has the group as its first
// dimension and `dims` count the dimensions of one group. Out-of-range offsets behave as in the
// ungrouped form (PopLibs leaves them undefined).
//
// Supported element types: FLOAT, HALF, INT, UNSIGNED_INT. Offsets are UNSIGNED_INT.
// Bad arguments throw poputil::poplibs_error naming the tensor and the argument.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <utility>
#include <vector>

#include <poplar/ArrayRef.hpp>
#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poputil/DebugInfo.hpp>

namespace popops {

class SlicePlanInternal;
class SlicePlan;
} // namespace popops

namespace poputil {
/// A plan's debug form (its group size, columns, grain and column groups).
template <> poplar::ProfileValue toProfileValue(const popops::SlicePlan &p);
} // namespace poputil

namespace popops {

/// How a multiSlice/multiUpdate is laid out: how many column groups the base's unsliced
/// elements are split into and which tile holds each group (every tile holds all rows of its
/// group). A default-constructed plan means "no plan": layouts are chosen from the arguments.
class SlicePlan {
public:
  SlicePlan();
  ~SlicePlan();
  SlicePlan(const SlicePlan &other);
  SlicePlan(SlicePlan &&other);
  SlicePlan &operator=(const SlicePlan &other);
  SlicePlan &operator=(SlicePlan &&other);

  friend std::ostream &operator<<(std::ostream &o, const SlicePlan &p);
  friend bool operator<(const SlicePlan &a, const SlicePlan &b) noexcept;
  friend bool operator==(const SlicePlan &a, const SlicePlan &b) noexcept;
  friend poplar::ProfileValue poputil::toProfileValue<>(const SlicePlan &p);

  // Implementation
  SlicePlan(std::unique_ptr<SlicePlanInternal> internal);
  /// Null for a default-constructed plan.
  const SlicePlanInternal *getImplPtr() const { return internal.get(); }
  const SlicePlanInternal &getImpl() const { return *internal; }

private:
  std::unique_ptr<SlicePlanInternal> internal;
};
/// A strict order on plans (the empty plan first), so plans can key a std::map.
bool operator<(const SlicePlan &a, const SlicePlan &b) noexcept;
bool operator==(const SlicePlan &a, const SlicePlan &b) noexcept;
bool operator!=(const SlicePlan &a, const SlicePlan &b) noexcept;

/// A tensor of `shape` mapped for slicing along `dims` (one dimension): its other elements
/// (columns) are split into groups of at least `minGrainSize` (0: one vector's worth), one
/// group per tile, each tile holding all rows of its group contiguously. With several `dims`
/// the tensor is simply spread linearly.
poplar::Tensor createSliceableTensor(poplar::Graph &graph, const poplar::Type &type,
                                     const std::vector<std::size_t> &shape,
                                     const std::vector<std::size_t> &dims,
                                     const std::vector<std::size_t> &sizes,
                                     std::size_t minGrainSize = 0,
                                     const poplar::DebugContext &debugContext = {});

/// As above, laid out as `plan` says (from embedding::plan); an empty plan behaves as above.
poplar::Tensor createSliceableTensor(poplar::Graph &graph, const poplar::Type &type,
                                     const std::vector<std::size_t> &shape,
                                     const std::vector<std::size_t> &dims,
                                     const std::vector<std::size_t> &sizes, const SlicePlan &plan,
                                     const poplar::OptionFlags &options,
                                     const poplar::DebugContext &debugContext = {});

/// As createSliceableTensor with a plan, for `groupSize` independent tables: shape
/// [groupSize][shape…], each group laid out as the plan says on its own run of tiles. `plan`
/// must come from embedding::plan with the same groupSize.
poplar::Tensor createGroupedSliceableTensor(
    poplar::Graph &graph, const poplar::Type &type, const std::size_t groupSize,
    const std::vector<std::size_t> &shape, const std::vector<std::size_t> &dims,
    const std::vector<std::size_t> &sizes, const SlicePlan &plan,
    const poplar::OptionFlags &options, const poplar::DebugContext &debugContext = {});

/// A tensor to hold `numIndices` slices of `t` along `dims`, shape
/// [numIndices][t's shape with dims[i] replaced by sizes[i]], with each column mapped to the
/// tile holding that column of `t` (so multiSlice/multiUpdate need no exchange of slices).
poplar::Tensor createSliceTensor(poplar::Graph &graph, const poplar::Tensor &t,
                                 const std::vector<std::size_t> &dims,
                                 const std::vector<std::size_t> &sizes, std::size_t numIndices,
                                 const poplar::DebugContext &debugContext = {});

/// As above for a base that createSliceableTensor(graph, type, shape, dims, sizes, plan, …)
/// would create.
poplar::Tensor createSliceTensor(poplar::Graph &graph, const poplar::Type &type,
                                 const std::vector<std::size_t> &shape,
                                 const std::vector<std::size_t> &dims,
                                 const std::vector<std::size_t> &sizes, std::size_t numIndices,
                                 const SlicePlan &plan, const poplar::OptionFlags &options,
                                 const poplar::DebugContext &debugContext = {});

/// Slices for the grouped operations: [groupSize][numIndices][shape with dims[i] replaced by
/// sizes[i]], each group's columns on the tiles createGroupedSliceableTensor gives that group.
poplar::Tensor createGroupedSliceTensor(
    poplar::Graph &graph, const poplar::Type &type, const std::size_t groupSize,
    const std::vector<std::size_t> &shape, const std::vector<std::size_t> &dims,
    const std::vector<std::size_t> &sizes, const std::size_t numIndices, const SlicePlan &plan,
    const poplar::OptionFlags &options, const poplar::DebugContext &debugContext = {});

/// An UNSIGNED_INT tensor [numIndices][dims.size()] for multiSlice/multiUpdate offsets,
/// spread linearly over the tiles.
poplar::Tensor createIndicesTensor(poplar::Graph &graph, const std::vector<std::size_t> &dims,
                                   std::size_t numIndices, const SlicePlan &plan,
                                   const poplar::OptionFlags &options,
                                   const poplar::DebugContext &debugContext = {});

/// An UNSIGNED_INT tensor [groupSize][numIndices][dims.size()] of offsets for the grouped
/// operations, spread linearly. `plan` must have been made for `groupSize`.
poplar::Tensor createGroupedIndicesTensor(poplar::Graph &graph, const std::size_t groupSize,
                                          const std::vector<std::size_t> &dims,
                                          const std::size_t numIndices, const SlicePlan &plan,
                                          const poplar::OptionFlags &options,
                                          const poplar::DebugContext &debugContext = {});

/// A tensor to slice `s`-shaped pieces out of: s's shape with dims[i] multiplied by
/// numSlices[i], each tile holding the same columns as it holds of `s` (for every row), so
/// slicing it into `s` moves no data between tiles.
poplar::Tensor createSliceableTensorFromSlice(poplar::Graph &graph, const poplar::Tensor &s,
                                              const std::vector<std::size_t> &dims,
                                              const std::vector<std::size_t> &numSlices,
                                              const poplar::DebugContext &debugContext = {});

/// Slice of `t` starting at `offset[i]` along `dims[i]` with `sizes[i]` elements, for each i
/// (offset: UNSIGNED_INT, one element per dim). Returns a new tensor of t's shape with
/// dims[i] replaced by sizes[i], mapped like `t`'s columns. One compute set per dim.
poplar::Tensor dynamicSlice(poplar::Graph &graph, const poplar::Tensor &t,
                            const poplar::Tensor &offset, const std::vector<std::size_t> &dims,
                            const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                            const poplar::DebugContext &debugContext = {},
                            const poplar::OptionFlags &options = {});

/// As dynamicSlice, writing the slice into `output` (which must have the slice's shape and t's
/// element type; it keeps its own tile mapping).
void dynamicSliceWithOutput(poplar::Graph &graph, const poplar::Tensor &output,
                            const poplar::Tensor &t, const poplar::Tensor &offset,
                            const std::vector<std::size_t> &dims,
                            const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                            const poplar::DebugContext &debugContext = {},
                            const poplar::OptionFlags &options = {});

/// The tile mapping dynamicSlice gives its result: t's mapping of its columns (all elements
/// outside `dims`), repeated for each row of the slice.
poplar::Graph::TileToTensorMapping getSliceMapping(poplar::Graph &graph, const poplar::Tensor &t,
                                                   const std::vector<std::size_t> &dims,
                                                   const std::vector<std::size_t> &sizes);

/// Writes `s` (t's shape with dims[i] replaced by sizes[i]) into `t` at `offset`.
void dynamicUpdate(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                   const poplar::Tensor &offset, const std::vector<std::size_t> &dims,
                   const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                   const poplar::DebugContext &debugContext = {},
                   const poplar::OptionFlags &options = {});

/// Takes offsets.dim(0) slices of `t` along the single dimension dims[0] (sizes[0] rows each)
/// at `offsets` ([numOffsets][1], or [numOffsets]) in one compute set. Returns
/// [numOffsets][t's shape with dims[0] replaced by sizes[0]].
poplar::Tensor multiSlice(poplar::Graph &graph, const poplar::Tensor &t,
                          const poplar::Tensor &offsets, const std::vector<std::size_t> &dims,
                          const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                          const SlicePlan &plan, const poplar::OptionFlags &options,
                          const poplar::DebugContext &debugContext = {});

/// multiSlice for each group g: t [groupSize][…], offsets [groupSize][numOffsets][1] (or
/// [groupSize][numOffsets]); returns [groupSize][numOffsets][group shape with dims[0] replaced
/// by sizes[0]]. One compute set for all groups.
poplar::Tensor groupedMultiSlice(poplar::Graph &graph, const poplar::Tensor &t,
                                 const poplar::Tensor &offsets,
                                 const std::vector<std::size_t> &dims,
                                 const std::vector<std::size_t> &sizes,
                                 poplar::program::Sequence &prog, const SlicePlan &plan,
                                 const poplar::OptionFlags &options,
                                 const poplar::DebugContext &debugContext = {});

/// multiSlice of unit slices along `dim` at offsets known when the graph is built (held as a
/// constant tensor). An offset >= t.dim(dim) gives zeros.
poplar::Tensor multiSlice(poplar::Graph &graph, const poplar::Tensor &t,
                          poplar::ArrayRef<unsigned> offsets, std::size_t dim,
                          poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext = {},
                          const poplar::OptionFlags &optionFlags = {});

/// Writes slice i of `sMulti` ([numOffsets][…] as multiSlice returns) into `t` at offsets[i].
void multiUpdate(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &sMulti,
                 const poplar::Tensor &offsets, const std::vector<std::size_t> &dims,
                 const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                 const SlicePlan &plan, const poplar::OptionFlags &options,
                 const poplar::DebugContext &debugContext = {});

/// multiUpdate for each group: t [groupSize][…], s and offsets with the group first.
void groupedMultiUpdate(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                        const poplar::Tensor &offsets, const std::vector<std::size_t> &dims,
                        const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                        const SlicePlan &plan, const poplar::OptionFlags &options,
                        const poplar::DebugContext &debugContext = {});

/// t[offsets[i]] += scale * sMulti[i] for each i in order (t is updated in place and
/// accumulates); `scale` is a one-element tensor of t's type, or FLOAT when t is HALF (as in
/// PopLibs; such a scale is used at float precision: the multiply-add runs in float and the
/// sum is rounded once to HALF). The
/// embedding-gradient update.
void multiUpdateAdd(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &sMulti,
                    const poplar::Tensor &offsets, const poplar::Tensor &scale,
                    const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                    poplar::program::Sequence &prog, const SlicePlan &plan,
                    const poplar::OptionFlags &options,
                    const poplar::DebugContext &debugContext = {});

/// multiUpdateAdd for each group (the scale is shared by all groups).
void groupedMultiUpdateAdd(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                           const poplar::Tensor &offsets, const poplar::Tensor &scale,
                           const std::vector<std::size_t> &dims,
                           const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                           const SlicePlan &plan, const poplar::OptionFlags &options,
                           const poplar::DebugContext &debugContext = {});

/// multiUpdateAdd of unit slices along `dim` at offsets known when the graph is built.
void multiUpdateAdd(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                    poplar::ArrayRef<unsigned> offsets, const poplar::Tensor &scale,
                    std::size_t dim, poplar::program::Sequence &prog,
                    const poplar::DebugContext &debugContext = {},
                    const poplar::OptionFlags &optionFlags = {});

/// t[offsets[i]] = max(t[offsets[i]], s[i]) for each i in order (the scatter-max). s has
/// t's element type; out-of-range slices are ignored.
void multiUpdateMax(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                    const poplar::Tensor &offsets, const std::vector<std::size_t> &dims,
                    const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                    const SlicePlan &plan, const poplar::OptionFlags &options,
                    const poplar::DebugContext &debugContext = {});

/// multiUpdateMax for each group.
void groupedMultiUpdateMax(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                           const poplar::Tensor &offsets, const std::vector<std::size_t> &dims,
                           const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                           const SlicePlan &plan, const poplar::OptionFlags &options,
                           const poplar::DebugContext &debugContext = {});

/// t[offsets[i]] *= s[i] for each i in order (the scatter-multiply); out-of-range slices are
/// ignored.
void multiUpdateMul(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                    const poplar::Tensor &offsets, const std::vector<std::size_t> &dims,
                    const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                    const SlicePlan &plan, const poplar::OptionFlags &options,
                    const poplar::DebugContext &debugContext = {});

/// multiUpdateMul for each group.
void groupedMultiUpdateMul(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                           const poplar::Tensor &offsets, const std::vector<std::size_t> &dims,
                           const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                           const SlicePlan &plan, const poplar::OptionFlags &options,
                           const poplar::DebugContext &debugContext = {});

namespace embedding {

/// Plans an embedding of `numEntries` rows of `outputSize` elements looked up `numLookups`
/// times per step: splits the `outputSize` columns into as many groups (of at least one SIMD
/// vector) as there are tiles, so each tile holds every row of its group. Options (also taken
/// by multiSlice, multiUpdate, multiUpdateAdd and the create* functions): PopLibs' keys
/// "usedForSlice", "usedForUpdate" (true/false, default true; both false throws here),
/// "operationForUpdate" (none/add/max), "availableMemoryProportion" (>= 0),
/// "indicesDistribution" (uniform/onePoint), "planMinimisationTarget" (memory/cycles) and
/// "indicesAreSorted" (true/false), "partialType" (half/float) are checked and accepted
/// but change neither layout nor results ("operationForUpdate" also takes "mul"); any other key
/// throws poplar::invalid_option.
SlicePlan plan(const poplar::Graph &graph, const poplar::Type &dataType,
               const std::size_t numEntries, const std::size_t outputSize,
               const std::vector<std::size_t> &numLookups, const poplar::OptionFlags &options);

/// As above for `groupSize` independent embeddings (the grouped operations): the tiles are
/// shared out between the groups, each group's columns split over its share.
SlicePlan plan(const poplar::Graph &graph, const poplar::Type &dataType,
               const std::size_t groupSize, const std::size_t numEntries,
               const std::size_t outputSize, const std::vector<std::size_t> &numLookups,
               const poplar::OptionFlags &options);

/// The arguments of one embedding::plan call, for planMultiple.
struct SlicePlanningParameters {
  SlicePlanningParameters(const poplar::Graph &graph_, const poplar::Type &dataType_,
                          std::size_t groupSize_, std::size_t numEntries_, std::size_t outputSize_,
                          std::vector<std::size_t> numLookups_, poplar::OptionFlags optionFlags_)
      : graph(graph_), dataType(dataType_), groupSize(groupSize_), numEntries(numEntries_),
        outputSize(outputSize_), numLookups(std::move(numLookups_)),
        optionFlags(std::move(optionFlags_)) {}

  const poplar::Graph &graph;
  poplar::Type dataType;
  std::size_t groupSize;
  std::size_t numEntries;
  std::size_t outputSize;
  std::vector<std::size_t> numLookups;
  poplar::OptionFlags optionFlags;
};

/// One plan per entry, each equal to what embedding::plan returns for those arguments (PopLibs
/// plans them in parallel; the result does not depend on it).
std::vector<SlicePlan> planMultiple(const std::vector<SlicePlanningParameters> &parameters);

} // namespace embedding

} // namespace popops
