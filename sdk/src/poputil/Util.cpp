// poputil/Util.hpp: interval lists, splitting work, copies and clones, casts, factoring.
#include <poputil/Util.hpp>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <utility>

#include <poplar/Half.hpp>

namespace poputil {

using poplar::Interval;

void mergeAdjacentRegions(std::vector<Interval> &regions) {
  std::sort(regions.begin(), regions.end());
  std::vector<Interval> merged;
  merged.reserve(regions.size());
  for (const auto &r : regions) {
    if (r.size() == 0)
      continue;
    if (!merged.empty() && merged.back().end() == r.begin())
      merged.back() = Interval(merged.back().begin(), r.end());
    else
      merged.push_back(r);
  }
  regions = std::move(merged);
}

void mergeAdjacentRegions(std::vector<std::vector<Interval>> &mapping) {
  for (auto &tile : mapping)
    mergeAdjacentRegions(tile);
}

std::vector<Interval> flattenIntervals(const std::vector<std::vector<Interval>> &intervals) {
  std::vector<Interval> out;
  for (const auto &list : intervals)
    out.insert(out.end(), list.begin(), list.end());
  return out;
}

namespace {

std::size_t ceilDiv(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

std::size_t sizeOf(const Interval &i) { return i.size(); }
std::size_t sizeOf(const std::vector<Interval> &seq) {
  std::size_t n = 0;
  for (const auto &i : seq)
    n += i.size();
  return n;
}

/// Elements [offset, offset + count) of interval `item`.
Interval pieceOf(const Interval &item, std::size_t offset, std::size_t count) {
  return Interval(item.begin() + offset, item.begin() + offset + count);
}

/// Elements [offset, offset + count) of the concatenation of the intervals of `seq`.
std::vector<Interval> pieceOf(const std::vector<Interval> &seq, std::size_t offset,
                              std::size_t count) {
  std::vector<Interval> out;
  for (const auto &iv : seq) {
    if (count == 0)
      break;
    if (offset >= iv.size()) {
      offset -= iv.size();
      continue;
    }
    const std::size_t take = std::min(count, iv.size() - offset);
    out.emplace_back(iv.begin() + offset, iv.begin() + offset + take);
    count -= take;
    offset = 0;
  }
  return out;
}

/// The shared rule of the split functions (see Util.hpp) for items that are intervals or
/// sequences of intervals. `who` names the public function in error messages.
template <class Item>
std::vector<std::vector<Item>>
splitItems(const char *who, const std::vector<Item> &items, unsigned grainSize,
           unsigned maxPartitions, unsigned minElementsPerPartition,
           unsigned maxElementsPerPartition, unsigned maxElementsPerRegion) {
  if (grainSize == 0)
    throw poplibs_error(std::string(who) + ": grainSize must be at least 1");
  if (maxPartitions == 0)
    throw poplibs_error(std::string(who) + ": maxPartitions must be at least 1");
  std::size_t total = 0;
  for (const auto &item : items)
    total += sizeOf(item);
  std::vector<std::vector<Item>> partitions;
  if (total == 0)
    return partitions;

  const std::size_t grains = ceilDiv(total, grainSize);
  std::size_t grainsPerPartition = ceilDiv(grains, maxPartitions);
  grainsPerPartition = std::min<std::size_t>(
      grainsPerPartition, std::max<std::size_t>(1, maxElementsPerPartition / grainSize));
  if (minElementsPerPartition != 0) {
    // The most partitions that can each still hold the minimum, then the fewest grains per
    // partition that fit every grain into that many.
    const std::size_t minGrains = ceilDiv(minElementsPerPartition, grainSize);
    const std::size_t mostPartitions = std::max<std::size_t>(1, grains / minGrains);
    grainsPerPartition = std::max(grainsPerPartition, ceilDiv(grains, mostPartitions));
  }
  const std::size_t numPartitions = ceilDiv(grains, grainsPerPartition);
  const std::size_t pieceLimit =
      std::size_t(grainSize) * std::max<std::size_t>(1, maxElementsPerRegion / grainSize);

  partitions.resize(numPartitions);
  std::size_t itemIndex = 0, offset = 0; // next element to hand out
  for (std::size_t p = 0; p < numPartitions; ++p) {
    // Grains [p*G/P, (p+1)*G/P): sizes differ by at most one grain, larger ones spread out.
    const std::size_t firstElem = (p * grains / numPartitions) * grainSize;
    const std::size_t endElem = std::min(total, ((p + 1) * grains / numPartitions) * grainSize);
    std::size_t wanted = endElem - firstElem;
    while (wanted > 0) {
      const std::size_t itemSize = sizeOf(items[itemIndex]);
      if (offset == itemSize) {
        ++itemIndex;
        offset = 0;
        continue;
      }
      const std::size_t take = std::min({wanted, itemSize - offset, pieceLimit});
      partitions[p].push_back(pieceOf(items[itemIndex], offset, take));
      offset += take;
      wanted -= take;
    }
  }
  return partitions;
}

} // namespace

std::vector<std::vector<Interval>> splitRegions(const std::vector<Interval> &regions,
                                                unsigned grainSize, unsigned maxPartitions,
                                                unsigned minElementsPerPartition,
                                                unsigned maxElementsPerPartition,
                                                unsigned maxElementsPerRegion) {
  return splitItems("poputil::splitRegions", regions, grainSize, maxPartitions,
                    minElementsPerPartition, maxElementsPerPartition, maxElementsPerRegion);
}

std::vector<std::vector<Interval>>
splitRegionsBetweenWorkers(const poplar::Target &target, const std::vector<Interval> &regions,
                           unsigned grainSize, unsigned minElementsPerPartition,
                           unsigned maxElementsPerPartition, unsigned maxElementsPerRegion) {
  return splitItems("poputil::splitRegionsBetweenWorkers", regions, grainSize,
                    target.getNumWorkerContexts(), minElementsPerPartition, maxElementsPerPartition,
                    maxElementsPerRegion);
}

std::vector<std::vector<std::vector<Interval>>>
splitRegions(const std::vector<std::vector<Interval>> &regions, unsigned grainSize,
             unsigned maxPartitions, unsigned minElementsPerPartition,
             unsigned maxElementsPerPartition, unsigned maxElementsPerRegion) {
  return splitItems("poputil::splitRegions", regions, grainSize, maxPartitions,
                    minElementsPerPartition, maxElementsPerPartition, maxElementsPerRegion);
}

std::vector<std::vector<std::vector<Interval>>>
splitRegionsBetweenWorkers(const poplar::Target &target,
                           const std::vector<std::vector<Interval>> &regions, unsigned grainSize,
                           unsigned minElementsPerPartition, unsigned maxElementsPerPartition,
                           unsigned maxElementsPerRegion) {
  return splitItems("poputil::splitRegionsBetweenWorkers", regions, grainSize,
                    target.getNumWorkerContexts(), minElementsPerPartition, maxElementsPerPartition,
                    maxElementsPerRegion);
}

std::size_t intervalSequenceNumElements(const std::vector<std::vector<Interval>> &seq) {
  std::size_t n = 0;
  for (const auto &s : seq)
    n += sizeOf(s);
  return n;
}

poplar::Tensor duplicate(poplar::Graph &graph, const poplar::Tensor &in,
                         poplar::program::Sequence &p, const poplar::DebugContext &debugContext,
                         poplar::TensorCloneMethod method) {
  if (!in.valid())
    throw poplibs_error("poputil::duplicate: the source tensor is invalid (default-constructed)");
  const poplar::DebugContext dc(debugContext, "duplicate");
  poplar::Tensor copy = graph.clone(in, dc, method);
  // With an alias-preserving method the copy writes a repeated element once per mention, each
  // time with the same value, which Tessera's Copy allows.
  if (in.numElements() != 0)
    p.add(poplar::program::Copy(in, copy, false, dc));
  return copy;
}

poplar::Tensor cloneN(poplar::Graph &graph, const poplar::Tensor &t, unsigned N,
                      const poplar::DebugContext &debugContext, poplar::TensorCloneMethod method) {
  if (!t.valid())
    throw poplibs_error("poputil::cloneN: the tensor to clone is invalid (default-constructed)");
  return graph.cloneN(t, N, debugContext, method);
}

std::vector<int> balancedPartition(int rangeUpperBound, int splitCount) {
  if (splitCount <= 0)
    throw poplibs_error("poputil::balancedPartition: splitCount must be positive, got " +
                        std::to_string(splitCount));
  if (rangeUpperBound < 0)
    throw poplibs_error("poputil::balancedPartition: rangeUpperBound must not be negative, got " +
                        std::to_string(rangeUpperBound));
  std::vector<int> sizes(splitCount, rangeUpperBound / splitCount);
  for (int i = 0; i < rangeUpperBound % splitCount; ++i)
    ++sizes[i];
  return sizes;
}

double castToDeviceHalfValue(const poplar::Target &target, double input) {
  const float asFloat = static_cast<float>(input);
  std::uint16_t bits = 0;
  poplar::copyFloatToDeviceHalf(target, &asFloat, &bits, 1);
  float back = 0;
  poplar::copyDeviceHalfToFloat(target, &bits, &back, 1);
  return back;
}

bool checkAccuracyWhenCast(const poplar::Target &target, double input, poplar::Type inputType,
                           poplar::Type outputType, double tolerance) {
  if (inputType == poplar::FLOAT && outputType == poplar::HALF) {
    const double asFloat = static_cast<float>(input);
    const double asHalf = castToDeviceHalfValue(target, asFloat);
    return std::fabs(asHalf - asFloat) < std::fabs(asFloat) * tolerance;
  }
  if (inputType == poplar::HALF && outputType == poplar::FLOAT)
    return true; // every half is a float
  throw poplibs_error("poputil::checkAccuracyWhenCast: can only check casts from float to half "
                      "or half to float, not from " +
                      inputType.toString() + " to " + outputType.toString());
}

poplar::Tensor factorDims(const poplar::Tensor &t, const std::vector<std::size_t> &factors,
                          unsigned startDim) {
  const std::size_t n = factors.size();
  if (startDim + n > t.rank())
    throw poplibs_error("poputil::factorDims: " + std::to_string(n) + " factors from dimension " +
                        std::to_string(startDim) + " run past the rank " +
                        std::to_string(t.rank()) + " of tensor " + t.shortString());
  std::vector<std::size_t> split; // (outer, inner) for each factored dimension
  for (std::size_t d = 0; d < n; ++d) {
    const std::size_t size = t.dim(startDim + d), f = factors[d];
    if (f == 0 || size % f != 0)
      throw poplibs_error("poputil::factorDims: factor " + std::to_string(f) +
                          " does not divide dimension " + std::to_string(startDim + d) + " (size " +
                          std::to_string(size) + ") of tensor " + t.shortString());
    split.push_back(size / f);
    split.push_back(f);
  }
  // After the reshape the dimensions read outer0, inner0, outer1, inner1, …; move every outer
  // part ahead of every inner part.
  std::vector<unsigned> from, to;
  for (unsigned d = 0; d < n; ++d) {
    from.push_back(startDim + 2 * d);
    to.push_back(startDim + d);
    from.push_back(startDim + 2 * d + 1);
    to.push_back(startDim + n + d);
  }
  return t.reshapePartial(startDim, startDim + n, split).dimShufflePartial(from, to);
}

poplar::Tensor unfactorDims(const poplar::Tensor &t, unsigned numDims, unsigned startDim) {
  if (startDim + 2 * std::size_t(numDims) > t.rank())
    throw poplibs_error("poputil::unfactorDims: " + std::to_string(2 * numDims) +
                        " factored dimensions from dimension " + std::to_string(startDim) +
                        " run past the rank " + std::to_string(t.rank()) + " of tensor " +
                        t.shortString());
  // Interleave outer d (at startDim + d) with inner d (at startDim + numDims + d), then merge.
  std::vector<unsigned> from, to;
  for (unsigned d = 0; d < numDims; ++d) {
    from.push_back(startDim + d);
    to.push_back(startDim + 2 * d);
    from.push_back(startDim + numDims + d);
    to.push_back(startDim + 2 * d + 1);
  }
  const auto interleaved = t.dimShufflePartial(from, to);
  std::vector<std::size_t> merged;
  for (unsigned d = 0; d < numDims; ++d)
    merged.push_back(interleaved.dim(startDim + 2 * d) * interleaved.dim(startDim + 2 * d + 1));
  return interleaved.reshapePartial(startDim, startDim + 2 * numDims, merged);
}

std::vector<Interval> calculateUnshufflingIntervals(const std::vector<Interval> &intervals) {
  // Where each interval landed in the shuffled tensor: the sum of the sizes before it.
  std::vector<std::pair<Interval, std::size_t>> placed;
  placed.reserve(intervals.size());
  std::size_t at = 0;
  for (const auto &iv : intervals) {
    if (iv.size() == 0)
      continue;
    placed.emplace_back(iv, at);
    at += iv.size();
  }
  // Taking the pieces in their original order restores the original tensor.
  std::sort(placed.begin(), placed.end(),
            [](const auto &a, const auto &b) { return a.first.begin() < b.first.begin(); });
  std::vector<Interval> out;
  out.reserve(placed.size());
  for (std::size_t i = 0; i < placed.size(); ++i) {
    if (i > 0 && placed[i - 1].first.end() != placed[i].first.begin())
      throw poplibs_error(
          std::string("poputil::calculateUnshufflingIntervals: intervals must cover one "
                      "contiguous range without overlap, but ") +
          (placed[i - 1].first.end() > placed[i].first.begin() ? "[" : "a gap lies between [") +
          std::to_string(placed[i - 1].first.begin()) + ", " +
          std::to_string(placed[i - 1].first.end()) + ") and [" +
          std::to_string(placed[i].first.begin()) + ", " + std::to_string(placed[i].first.end()) +
          ")" + (placed[i - 1].first.end() > placed[i].first.begin() ? " overlap" : ""));
    out.emplace_back(placed[i].second, placed[i].second + placed[i].first.size());
  }
  return out;
}

} // namespace poputil
