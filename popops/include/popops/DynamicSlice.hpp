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
// Repeated offsets: multiUpdate keeps the last slice; multiUpdateAdd adds every slice, in
// offset order, so results are deterministic.
//
// Supported element types: FLOAT, HALF, INT, UNSIGNED_INT. Offsets are UNSIGNED_INT.
// Bad arguments throw poputil::poplibs_error naming the tensor and the argument.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popops {

class SlicePlanInternal;

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
  friend bool operator==(const SlicePlan &a, const SlicePlan &b) noexcept;

  // Implementation
  SlicePlan(std::unique_ptr<SlicePlanInternal> internal);
  /// Null for a default-constructed plan.
  const SlicePlanInternal *getImplPtr() const { return internal.get(); }
  const SlicePlanInternal &getImpl() const { return *internal; }

private:
  std::unique_ptr<SlicePlanInternal> internal;
};
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

/// An UNSIGNED_INT tensor [numIndices][dims.size()] for multiSlice/multiUpdate offsets,
/// spread linearly over the tiles.
poplar::Tensor createIndicesTensor(poplar::Graph &graph, const std::vector<std::size_t> &dims,
                                   std::size_t numIndices, const SlicePlan &plan,
                                   const poplar::OptionFlags &options,
                                   const poplar::DebugContext &debugContext = {});

/// Slice of `t` starting at `offset[i]` along `dims[i]` with `sizes[i]` elements, for each i
/// (offset: UNSIGNED_INT, one element per dim). Returns a new tensor of t's shape with
/// dims[i] replaced by sizes[i], mapped like `t`'s columns. One compute set per dim.
poplar::Tensor dynamicSlice(poplar::Graph &graph, const poplar::Tensor &t,
                            const poplar::Tensor &offset, const std::vector<std::size_t> &dims,
                            const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                            const poplar::DebugContext &debugContext = {});

/// As dynamicSlice, writing the slice into `output` (which must have the slice's shape and t's
/// element type; it keeps its own tile mapping).
void dynamicSliceWithOutput(poplar::Graph &graph, const poplar::Tensor &output,
                            const poplar::Tensor &t, const poplar::Tensor &offset,
                            const std::vector<std::size_t> &dims,
                            const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                            const poplar::DebugContext &debugContext = {});

/// Writes `s` (t's shape with dims[i] replaced by sizes[i]) into `t` at `offset`.
void dynamicUpdate(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                   const poplar::Tensor &offset, const std::vector<std::size_t> &dims,
                   const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                   const poplar::DebugContext &debugContext = {});

/// Takes offsets.dim(0) slices of `t` along the single dimension dims[0] (sizes[0] rows each)
/// at `offsets` ([numOffsets][1], or [numOffsets]) in one compute set. Returns
/// [numOffsets][t's shape with dims[0] replaced by sizes[0]].
poplar::Tensor multiSlice(poplar::Graph &graph, const poplar::Tensor &t,
                          const poplar::Tensor &offsets, const std::vector<std::size_t> &dims,
                          const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                          const SlicePlan &plan, const poplar::OptionFlags &options,
                          const poplar::DebugContext &debugContext = {});

/// Writes slice i of `sMulti` ([numOffsets][…] as multiSlice returns) into `t` at offsets[i].
void multiUpdate(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &sMulti,
                 const poplar::Tensor &offsets, const std::vector<std::size_t> &dims,
                 const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                 const SlicePlan &plan, const poplar::OptionFlags &options,
                 const poplar::DebugContext &debugContext = {});

/// t[offsets[i]] += scale * sMulti[i] for each i in order (t is updated in place and
/// accumulates); `scale` is a one-element tensor of t's type, or FLOAT when t is HALF (as in
/// PopLibs; Tessera rounds such a scale to HALF before the float multiply-add). The
/// embedding-gradient update.
void multiUpdateAdd(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &sMulti,
                    const poplar::Tensor &offsets, const poplar::Tensor &scale,
                    const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                    poplar::program::Sequence &prog, const SlicePlan &plan,
                    const poplar::OptionFlags &options,
                    const poplar::DebugContext &debugContext = {});

namespace embedding {

/// Plans an embedding of `numEntries` rows of `outputSize` elements looked up `numLookups`
/// times per step: splits the `outputSize` columns into as many groups (of at least one SIMD
/// vector) as there are tiles, so each tile holds every row of its group. Options (also taken
/// by multiSlice, multiUpdate, multiUpdateAdd and the create* functions): PopLibs' keys
/// "usedForSlice", "usedForUpdate" (true/false, default true; both false throws here),
/// "operationForUpdate" (none/add/max), "availableMemoryProportion" (>= 0),
/// "indicesDistribution" (uniform/onePoint), "planMinimisationTarget" (memory/cycles) and
/// "indicesAreSorted" (true/false) are checked and accepted but change neither layout nor
/// results; any other key throws poplar::invalid_option.
SlicePlan plan(const poplar::Graph &graph, const poplar::Type &dataType, std::size_t numEntries,
               std::size_t outputSize, const std::vector<std::size_t> &numLookups,
               const poplar::OptionFlags &options);

} // namespace embedding

} // namespace popops
