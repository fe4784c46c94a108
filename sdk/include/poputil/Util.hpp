// General helpers for building graphs: interval lists (merging, flattening, splitting work
// between tiles or worker contexts), row-major index arithmetic, copying and cloning tensors,
// dimension factoring, and checks on float/half casts.
//
// Every declaration keeps PopLibs 3.x's name, argument order, defaults and return type, so code
// written for Graphcore's poputil compiles unchanged. Left out: `createMetadataTensor` (its
// `poplar::QuarterMetadata` argument belongs to the FP8 QUARTER type, which Tessera does not
// have).
#pragma once

#include <algorithm>
#include <cassert>
#include <climits>
#include <cstddef>
#include <string>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Device.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Interval.hpp>
#include <poplar/Program.hpp>
#include <poplar/Target.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/TensorCloneMethod.hpp>
#include <poplar/Type.hpp>
#include <poputil/exceptions.hpp>

namespace poputil {

// ---- interval lists -----------------------------------------------------------------------

/// Sorts `regions`, drops empty ones and joins neighbours where one ends as the next begins.
/// The intervals must not overlap; the result covers the same elements with the fewest runs.
void mergeAdjacentRegions(std::vector<poplar::Interval> &regions);

/// The same on every tile's list of a tile mapping (each tile merged on its own).
void mergeAdjacentRegions(std::vector<std::vector<poplar::Interval>> &mapping);

/// The lists of `intervals` one after the other, in order (for example a tile mapping as one
/// list, tile 0's intervals first).
std::vector<poplar::Interval>
flattenIntervals(const std::vector<std::vector<poplar::Interval>> &intervals);

// ---- dividing work -----------------------------------------------------------------------
//
// The split functions share one rule. The elements of `regions`, taken in order, are counted
// in grains of `grainSize` (the last grain may be short). A partition may hold up to
// ceil(grains / maxPartitions) grains, and as few partitions P are used as that allows;
// partition p then gets grains [p*G/P, (p+1)*G/P) of the G grains (rounded down), so sizes
// differ by at most one grain. `maxElementsPerPartition` lowers the
// grains a partition may hold (rounded down to whole grains, at least one), which can make more
// than `maxPartitions` partitions; `minElementsPerPartition` then raises it again (rounded up to
// whole grains) so that, where there are enough elements, no partition is smaller, giving fewer
// partitions. A region that straddles partitions is cut between them, and a piece longer than
// `maxElementsPerRegion` (rounded down to whole grains, at least one) is cut into several
// pieces. Every partition returned is non-empty; no elements give no partitions.

/// Partitions contiguous `regions` as described above: element k of the result lists the
/// pieces of the regions, in order, that partition k works on.
std::vector<std::vector<poplar::Interval>>
splitRegions(const std::vector<poplar::Interval> &regions, unsigned grainSize,
             unsigned maxPartitions, unsigned minElementsPerPartition = 0,
             unsigned maxElementsPerPartition = UINT_MAX, unsigned maxElementsPerRegion = UINT_MAX);

/// splitRegions with one partition per worker context of a tile
/// (`target.getNumWorkerContexts()`), for the regions one tile works on.
std::vector<std::vector<poplar::Interval>> splitRegionsBetweenWorkers(
    const poplar::Target &target, const std::vector<poplar::Interval> &regions, unsigned grainSize,
    unsigned minElementsPerPartition = 0, unsigned maxElementsPerPartition = UINT_MAX,
    unsigned maxElementsPerRegion = UINT_MAX);

/// splitRegions over sequences of regions (each sequence one unit of work, such as the regions
/// of one row): a sequence is treated as the concatenation of its intervals, and element k of
/// the result lists the pieces of sequences, each itself a list of intervals, that partition k
/// works on.
std::vector<std::vector<std::vector<poplar::Interval>>>
splitRegions(const std::vector<std::vector<poplar::Interval>> &regions, unsigned grainSize,
             unsigned maxPartitions, unsigned minElementsPerPartition = 0,
             unsigned maxElementsPerPartition = UINT_MAX, unsigned maxElementsPerRegion = UINT_MAX);

/// The sequence splitRegions with one partition per worker context of a tile.
std::vector<std::vector<std::vector<poplar::Interval>>> splitRegionsBetweenWorkers(
    const poplar::Target &target, const std::vector<std::vector<poplar::Interval>> &regions,
    unsigned grainSize, unsigned minElementsPerPartition = 0,
    unsigned maxElementsPerPartition = UINT_MAX, unsigned maxElementsPerRegion = UINT_MAX);

// ---- row-major index arithmetic ----------------------------------------------------------

/// The coordinates, one per dimension of `shape`, of flat row-major element `index`.
/// Throws poplibs_error if `index` is not less than the number of elements of `shape`.
template <class T> std::vector<T> unflattenIndex(const std::vector<T> &shape, std::size_t index) {
  std::size_t count = 1;
  for (const auto d : shape)
    count *= static_cast<std::size_t>(d);
  if (index >= count)
    throw poplibs_error("poputil::unflattenIndex: index " + std::to_string(index) +
                        " is out of range for a shape of " + std::to_string(count) + " elements");
  std::vector<T> coord(shape.size());
  // Peel dimensions off from the innermost, which varies fastest.
  for (std::size_t i = shape.size(); i-- > 0;) {
    const auto extent = static_cast<std::size_t>(shape[i]);
    coord[i] = static_cast<T>(index % extent);
    index /= extent;
  }
  return coord;
}

/// The flat row-major index of the element at `indices` in a tensor of `shape`.
/// Throws poplibs_error if the two lists differ in length or an index is out of its dimension.
template <class T>
std::size_t flattenIndex(const std::vector<T> &shape, const std::vector<T> &indices) {
  if (indices.size() != shape.size())
    throw poplibs_error("poputil::flattenIndex: " + std::to_string(indices.size()) +
                        " indices given for a shape of rank " + std::to_string(shape.size()));
  std::size_t flat = 0;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (indices[i] >= shape[i])
      throw poplibs_error("poputil::flattenIndex: index " +
                          std::to_string(static_cast<std::size_t>(indices[i])) + " of dimension " +
                          std::to_string(i) + " is not below its size " +
                          std::to_string(static_cast<std::size_t>(shape[i])));
    flat = flat * static_cast<std::size_t>(shape[i]) + static_cast<std::size_t>(indices[i]);
  }
  return flat;
}

/// The number of elements covered by every interval of every sequence of `seq`.
std::size_t intervalSequenceNumElements(const std::vector<std::vector<poplar::Interval>> &seq);

// ---- copies and clones -------------------------------------------------------------------

/// A new variable like `in` (same shape, type and tile mapping; see Graph::clone for `method`)
/// and a copy of `in` into it appended to `p`. With PRESERVE_ORDER_AND_ALIASES the new variable
/// repeats the elements `in` repeats. Throws poplibs_error if `in` is invalid.
poplar::Tensor duplicate(
    poplar::Graph &graph, const poplar::Tensor &in, poplar::program::Sequence &p,
    const poplar::DebugContext &debugContext = {},
    poplar::TensorCloneMethod method = poplar::TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES);

/// `N` clones of `t` stacked in a new outermost dimension: shape [N, ...t's shape], each
/// [i] laid out and mapped like `t`. No data is copied. Throws poplibs_error if `t` is invalid.
poplar::Tensor
cloneN(poplar::Graph &graph, const poplar::Tensor &t, unsigned N,
       const poplar::DebugContext &debugContext = {},
       poplar::TensorCloneMethod method = poplar::TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES);

/// Sizes of `splitCount` consecutive slices that together cover `rangeUpperBound` units as
/// evenly as possible: the first `rangeUpperBound % splitCount` slices get one unit more.
/// Throws poplibs_error if `splitCount` is not positive or `rangeUpperBound` is negative.
std::vector<int> balancedPartition(int rangeUpperBound, int splitCount);

// ---- float/half casts --------------------------------------------------------------------

/// `input` rounded as the target converts a float to HALF (first to float, then to the
/// nearest half, ties to even; too large gives infinity), returned as a double.
double castToDeviceHalfValue(const poplar::Target &target, double input);

/// Whether casting `input` from `inputType` to `outputType` keeps it within relative error
/// `tolerance`: FLOAT to HALF is accurate when |half(x) - x| < tolerance * |x| (so an overflow
/// to infinity, or a value that rounds to zero, is not); HALF to FLOAT is always exact.
/// Throws poplibs_error for any other pair of types.
bool checkAccuracyWhenCast(const poplar::Target &target, double input, poplar::Type inputType,
                           poplar::Type outputType, double tolerance);

// ---- dimension factoring -----------------------------------------------------------------

/// A view of `t` with dimensions startDim … startDim+F-1 (F = factors.size()) each split into
/// an outer part of size dim/f and an inner part of size f, the outer parts first:
/// [.., d0/f0, d1/f1, …, f0, f1, …, ..]. For example shape [4,6,4] with factors [1,2] becomes
/// [4,3,1,2,4]. Throws poplibs_error if a factor is zero or does not divide its dimension, or
/// the dimensions run past t's rank.
poplar::Tensor factorDims(const poplar::Tensor &t, const std::vector<std::size_t> &factors,
                          unsigned startDim = 0);

/// The inverse of factorDims: the 2 * numDims dimensions from `startDim` (outer parts, then
/// inner parts) are merged back into numDims dimensions. Throws poplibs_error if t has fewer
/// than startDim + 2 * numDims dimensions.
poplar::Tensor unfactorDims(const poplar::Tensor &t, unsigned numDims, unsigned startDim = 0);

// ---- shuffles ----------------------------------------------------------------------------

/// For `intervals` that shuffle a flat tensor (shuffled = concat(t.slices(intervals))), the
/// intervals that shuffle it back: concat(shuffled.slices(result)) == t. The intervals must not
/// overlap and together must cover one contiguous range. O(n log n) in the number of
/// intervals. Throws poplibs_error if they overlap or leave a gap.
std::vector<poplar::Interval>
calculateUnshufflingIntervals(const std::vector<poplar::Interval> &intervals);

} // namespace poputil
