// Regrouping: view the tensor as [...][to group][from group], copy that view into a variable
// laid out transposition by transposition over the tiles, transpose each [from][to] block with
// Transpose2D vertices, and view the result back in the original shape.
#include <popops/Rearrange.hpp>

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

#include <poputil/VertexTemplates.hpp>
#include <poputil/exceptions.hpp>

namespace popops {
namespace rearrange {

namespace {

using poputil::GroupingInfo;

bool isTransposable(const poplar::Type &t) {
  return t == poplar::HALF || t == poplar::FLOAT || t == poplar::UNSIGNED_SHORT ||
         t == poplar::SHORT || t == poplar::UNSIGNED_INT || t == poplar::INT;
}

/// t with the groups `first` then `second` split off and moved innermost:
/// [..., dim/g..., first.second, second.second].
poplar::Tensor groupTensor(const poplar::Tensor &t, const GroupingInfo &first,
                           const GroupingInfo &second) {
  const unsigned rank = t.rank();
  poplar::Tensor g = t.reshapePartial(first.first, first.first + 1,
                                      {t.dim(first.first) / first.second, first.second})
                         .dimRoll(first.first + 1, rank);
  return g
      .reshapePartial(second.first, second.first + 1,
                      {g.dim(second.first) / second.second, second.second})
      .dimRoll(second.first + 1, rank + 1);
}

/// The inverse view of groupTensor for a tensor whose two innermost dimensions are the groups
/// `first` (outer) and `second` (inner).
poplar::Tensor ungroupTensor(const poplar::Tensor &t, const GroupingInfo &first,
                             const GroupingInfo &second) {
  const unsigned rank = t.rank() - 2;
  poplar::Tensor u = t.dimRoll(rank, first.first + 1).flatten(first.first, first.first + 2);
  return u.dimRoll(rank, second.first + 1).flatten(second.first, second.first + 2);
}

std::string groupingString(const GroupingInfo &g) {
  std::string s = "{";
  s += std::to_string(g.first);
  s += ',';
  s += std::to_string(g.second);
  s += '}';
  return s;
}

void checkGrouping(const poplar::Tensor &t, const GroupingInfo &g, const char *name) {
  if (g.first >= t.rank())
    throw poputil::poplibs_error(std::string("popops::rearrange::regroupTensor: grouping '") +
                                 name + "' " + groupingString(g) + " names dimension " +
                                 std::to_string(g.first) + " of a rank " +
                                 std::to_string(t.rank()) + " tensor " + t.shortString());
  if (g.second == 0 || t.dim(g.first) % g.second)
    throw poputil::poplibs_error(std::string("popops::rearrange::regroupTensor: grouping '") +
                                 name + "' " + groupingString(g) + " does not divide dimension " +
                                 std::to_string(g.first) + " of " + t.shortString());
}

std::size_t ceilDiv(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

/// Per IPU, the transpositions (rows of `flat`, [transpositions][elements]) whose first element
/// lies there, as intervals.
std::vector<std::vector<poplar::Interval>> transpositionsPerIpu(const poplar::Graph &graph,
                                                                const poplar::Tensor &flat) {
  const auto &target = graph.getTarget();
  const unsigned tilesPerIpu = target.getTilesPerIPU();
  const auto mapping = graph.getTileMapping(flat.slice(0, 1, 1), false);
  const unsigned numIpus = std::max<unsigned>(1, unsigned(mapping.size()) / tilesPerIpu);
  std::vector<std::vector<poplar::Interval>> out(numIpus);
  for (unsigned tile = 0; tile < mapping.size(); ++tile)
    for (const auto &i : mapping[tile])
      out[std::min(numIpus - 1, tile / tilesPerIpu)].push_back(i);
  for (auto &v : out)
    std::sort(v.begin(), v.end(), [](const poplar::Interval &a, const poplar::Interval &b) {
      return a.begin() < b.begin();
    });
  // Unmapped transpositions go with the first IPU.
  std::vector<bool> seen(flat.dim(0), false);
  for (const auto &v : out)
    for (const auto &i : v)
      for (auto k = i.begin(); k < i.end(); ++k)
        seen[k] = true;
  for (std::size_t k = 0; k < seen.size(); ++k)
    if (!seen[k])
      out[0].emplace_back(k, k + 1);
  return out;
}

} // namespace

bool canUseFastTranspose(const poplar::Target &target, const poplar::Type &type, unsigned numRows,
                         unsigned numColumns, unsigned numTranspositions) {
  const bool twoByte =
      type == poplar::HALF || type == poplar::SHORT || type == poplar::UNSIGNED_SHORT;
  if (!twoByte || numRows % 4 || numColumns % 4 ||
      numTranspositions > std::numeric_limits<unsigned short>::max())
    return false;
  // Blocks of 4 x 4 are walked by hardware loops whose repeat counts and strides are limited.
  const unsigned strideLimit = 1u << (target.getNumStrideBits() - 1);
  const unsigned innerBlocks = numColumns == 4 ? numRows / 4 : numColumns / 4;
  if (numRows == 4 && numColumns == 4)
    return numTranspositions < 2 || numTranspositions - 2 <= target.getRptCountMax();
  if (innerBlocks >= 2 && innerBlocks - 2 > target.getRptCountMax())
    return false;
  if (innerBlocks * 3 - 1 > strideLimit)
    return false;
  return numColumns == 4 || numRows / 4 < strideLimit;
}

void addTransposeVertices(
    poplar::Graph &graph, const poplar::ComputeSet &cs, const poplar::Type &dType, unsigned rows,
    unsigned cols, const poplar::Graph::TileToTensorMapping &mapping,
    std::function<std::pair<const poplar::Tensor, const poplar::Tensor>(std::size_t)> getInOut,
    const poplar::DebugContext &) {
  if (!isTransposable(dType))
    throw poputil::poplibs_error("popops::rearrange::addTransposeVertices: no transposition for "
                                 "data type " +
                                 dType.toString());
  if (rows > std::numeric_limits<unsigned short>::max() ||
      cols > std::numeric_limits<unsigned short>::max())
    throw poputil::poplibs_error(
        "popops::rearrange::addTransposeVertices: " + std::to_string(rows) + " x " +
        std::to_string(cols) + " matrices exceed the 65535 rows or columns supported");
  const std::string vertexType = poputil::templateVertex("popops::Transpose2D", dType);
  for (unsigned tile = 0; tile < mapping.size(); ++tile) {
    std::vector<poplar::Tensor> src, dst;
    for (const auto &interval : mapping[tile])
      for (auto index = interval.begin(); index < interval.end(); ++index) {
        const auto [in, out] = getInOut(index);
        src.push_back(in);
        dst.push_back(out);
        graph.setTileMapping(out, tile);
      }
    if (src.empty())
      continue;
    auto v = graph.addVertex(cs, vertexType);
    graph.connect(v["src"], src);
    graph.connect(v["dst"], dst);
    graph.setInitialValue(v["numSrcRows"], rows);
    graph.setInitialValue(v["numSrcColumns"], cols);
    graph.setTileMapping(v, tile);
  }
}

poplar::Tensor partialTranspose(poplar::Graph &graph, const poplar::Tensor &in,
                                const poplar::ComputeSet &cs,
                                const poplar::DebugContext &debugContext) {
  if (in.rank() < 2)
    throw poputil::poplibs_error("popops::rearrange::partialTranspose: in must have rank >= 2, "
                                 "got " +
                                 in.shortString());
  const unsigned rank = in.rank();
  const std::size_t rows = in.dim(rank - 2), cols = in.dim(rank - 1);
  std::vector<std::size_t> outShape = in.shape();
  std::swap(outShape[rank - 2], outShape[rank - 1]);
  poplar::Tensor out =
      graph.addVariable(in.elementType(), outShape, {debugContext, "partialTranspose"});
  if (in.numElements() == 0)
    return out;
  const std::size_t matrices = in.numElements() / (rows * cols);
  const poplar::Tensor inFlat = in.reshape({matrices, rows * cols});
  const poplar::Tensor outFlat = out.reshape({matrices, rows * cols});
  addTransposeVertices(
      graph, cs, in.elementType(), static_cast<unsigned>(rows), static_cast<unsigned>(cols),
      graph.getTileMapping(inFlat.slice(0, 1, 1)),
      [&](std::size_t index) { return std::make_pair(inFlat[index], outFlat[index]); },
      debugContext);
  return out;
}

unsigned getMinimumRegroupGrainSize(const poplar::Type &type) {
  if (type == poplar::HALF || type == poplar::SHORT || type == poplar::UNSIGNED_SHORT)
    return 4;
  if (type == poplar::FLOAT || type == poplar::INT || type == poplar::UNSIGNED_INT)
    return 2;
  return 1;
}

std::pair<GroupingInfo, GroupingInfo> updateGrouping(const poplar::Graph &graph,
                                                     const poplar::Tensor &t,
                                                     const GroupingInfo &from,
                                                     const GroupingInfo &to) {
  const unsigned grain = getMinimumRegroupGrainSize(t.elementType());
  if (from.second % grain || to.second % grain || t.numElements() == 0)
    return {from, to};
  const auto &target = graph.getTarget();
  const std::size_t tiles = target.getTilesPerIPU(), workers = target.getNumWorkerContexts();
  const std::size_t perTransposition = std::size_t(from.second) * to.second;
  // The busiest IPU's transpositions.
  const poplar::Tensor grouped = groupTensor(t, to, from);
  const poplar::Tensor flat = grouped.flatten(0, grouped.rank() - 2).flatten(1, 3);
  std::size_t busiest = 0;
  for (const auto &v : transpositionsPerIpu(graph, flat)) {
    std::size_t n = 0;
    for (const auto &i : v)
      n += i.size();
    busiest = std::max(busiest, n);
  }
  // Splitting every transposition by x (a factor of what the grain allows) gives x times as
  // many smaller ones; take the x with the lowest estimated time of the busiest IPU.
  const std::size_t room = perTransposition / (std::size_t(grain) * grain);
  std::size_t best = 1, bestCost = std::numeric_limits<std::size_t>::max();
  for (std::size_t x = 1; x <= room; ++x) {
    if (room % x)
      continue;
    if (busiest * x > tiles * workers)
      break;
    const std::size_t cost = (room / x) * ceilDiv(ceilDiv(busiest * x, tiles), workers);
    if (cost < bestCost) {
      bestCost = cost;
      best = x;
    }
  }
  GroupingInfo newFrom = from, newTo = to;
  const std::size_t fromSplit = std::gcd(best, std::size_t(from.second / grain));
  newFrom.second /= static_cast<unsigned>(fromSplit);
  const std::size_t toSplit = std::gcd(best / fromSplit, std::size_t(to.second / grain));
  newTo.second /= static_cast<unsigned>(toSplit);
  return {newFrom, newTo};
}

poplar::Tensor regroupTensor(poplar::Graph &graph, const poplar::Tensor &t,
                             std::vector<poplar::program::Copy> &copies,
                             const poplar::ComputeSet &transposeCS, const GroupingInfo &from_,
                             const GroupingInfo &to_, const poplar::DebugContext &debugContext) {
  if (t.rank() <= 1)
    return t;
  if (!isTransposable(t.elementType()))
    throw poputil::poplibs_error("popops::rearrange::regroupTensor: data type " +
                                 t.elementType().toString() + " of " + t.shortString() +
                                 " cannot be regrouped");
  checkGrouping(t, from_, "from");
  checkGrouping(t, to_, "to");
  const auto [from, to] = updateGrouping(graph, t, from_, to_);
  const poplar::Tensor grouped = groupTensor(t, to, from);
  poplar::Tensor pre =
      graph.addVariable(t.elementType(), grouped.shape(), {debugContext, "preRegroup"});
  const poplar::Tensor preFlat = pre.flatten(0, pre.rank() - 2).flatten(1, 3);
  // Spread each IPU's transpositions evenly over that IPU's tiles.
  const unsigned tilesPerIpu = graph.getTarget().getTilesPerIPU();
  const auto perIpu =
      transpositionsPerIpu(graph, grouped.flatten(0, grouped.rank() - 2).flatten(1, 3));
  for (unsigned ipu = 0; ipu < perIpu.size(); ++ipu) {
    std::vector<std::size_t> indices;
    for (const auto &i : perIpu[ipu])
      for (auto k = i.begin(); k < i.end(); ++k)
        indices.push_back(k);
    const std::size_t perTile = ceilDiv(indices.size(), tilesPerIpu);
    for (std::size_t n = 0; n < indices.size(); ++n)
      graph.setTileMapping(preFlat[indices[n]], ipu * tilesPerIpu + unsigned(n / perTile));
  }
  copies.emplace_back(grouped, pre, false, poplar::DebugContext(debugContext, "preRegroup"));
  const poplar::Tensor transposed = partialTranspose(graph, pre, transposeCS, debugContext);
  return ungroupTensor(transposed, from, to);
}

poplar::Tensor regroupTensor(poplar::Graph &graph, const poplar::Tensor &t,
                             poplar::program::Sequence &copies,
                             const poplar::ComputeSet &transposeCS, const GroupingInfo &from,
                             const GroupingInfo &to, const poplar::DebugContext &debugContext) {
  std::vector<poplar::program::Copy> copyList;
  poplar::Tensor out = regroupTensor(graph, t, copyList, transposeCS, from, to, debugContext);
  for (const auto &c : copyList)
    copies.add(c);
  return out;
}

poplar::Tensor regroupIfPossible(poplar::Graph &graph, const poplar::Tensor &t,
                                 poplar::program::Sequence &prog, const GroupingInfo &to,
                                 const poplar::DebugContext &debugContext) {
  if (t.rank() <= 1 || to.first >= t.rank() || to.second == 0 || t.dim(to.first) % to.second ||
      !isTransposable(t.elementType()))
    return t;
  const auto groupings = poputil::detectDimGroupings(graph, t);
  const unsigned grain = getMinimumRegroupGrainSize(t.elementType());
  if (groupings.empty() || groupings[0].first == to.first || groupings[0].second % grain)
    return t;
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, "regroupTensor"});
  poplar::Tensor out = regroupTensor(graph, t, prog, cs, groupings[0], to, debugContext);
  prog.add(poplar::program::Execute(cs, {debugContext, "regroupTensor"}));
  return out;
}

poplar::Tensor regroupIfBeneficial(poplar::Graph &graph, const poplar::Tensor &in,
                                   const poplar::Tensor &ref,
                                   std::vector<poplar::program::Copy> &preTranspose,
                                   poplar::ComputeSet transposeCS,
                                   const poplar::DebugContext &debugContext) {
  if (in.rank() <= 1 || ref.rank() <= 1 || !isTransposable(in.elementType()))
    return in;
  if (in.shape() != ref.shape())
    throw poputil::poplibs_error("popops::rearrange::regroupIfBeneficial: in " + in.shortString() +
                                 " and ref " + ref.shortString() + " must have the same shape");
  const auto inGrouping = poputil::detectDimGroupings(graph, in);
  const auto refGrouping = poputil::detectDimGroupings(graph, ref);
  const unsigned grain = getMinimumRegroupGrainSize(in.elementType());
  if (inGrouping.empty() || refGrouping.empty() || inGrouping[0].first == refGrouping[0].first ||
      inGrouping[0].second % grain || refGrouping[0].second % grain)
    return in;
  return regroupTensor(graph, in, preTranspose, transposeCS, inGrouping[0], refGrouping[0],
                       debugContext);
}

poplar::Tensor regroupIfBeneficial(poplar::Graph &graph, const poplar::Tensor &in,
                                   const poplar::Tensor &ref, poplar::program::Sequence &prog,
                                   const poplar::DebugContext &debugContext) {
  std::vector<poplar::program::Copy> copies;
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, "Transpose"});
  poplar::Tensor out = regroupIfBeneficial(graph, in, ref, copies, cs, debugContext);
  for (const auto &c : copies)
    prog.add(c);
  prog.add(poplar::program::Execute(cs, {debugContext, "Transpose"}));
  return out;
}

poplar::Tensor regroupIfBeneficial(poplar::Graph &graph, const poplar::Tensor &in,
                                   std::size_t preferredGrouping, poplar::program::Sequence &prog,
                                   const poplar::DebugContext &debugContext) {
  if (in.rank() == 0 || !isTransposable(in.elementType()))
    return in;
  if (preferredGrouping == 0 || in.dim(in.rank() - 1) % preferredGrouping)
    throw poputil::poplibs_error("popops::rearrange::regroupIfBeneficial: preferredGrouping " +
                                 std::to_string(preferredGrouping) +
                                 " does not divide the innermost dimension of in " +
                                 in.shortString());
  const auto inGrouping = poputil::detectDimGroupings(graph, in);
  const GroupingInfo preferred{in.rank() - 1, static_cast<unsigned>(preferredGrouping)};
  const unsigned grain = getMinimumRegroupGrainSize(in.elementType());
  if (inGrouping.empty() || inGrouping[0].first == preferred.first ||
      inGrouping[0].second % grain || preferred.second % grain)
    return in;
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, "Transpose"});
  poplar::Tensor out = regroupTensor(graph, in, prog, cs, inGrouping[0], preferred, debugContext);
  prog.add(poplar::program::Execute(cs, {debugContext, "Transpose"}));
  return out;
}

} // namespace rearrange
} // namespace popops
