// poputil/VarStructure.hpp: groupings of a tensor's layout, partitionable tensors.
#include <poputil/VarStructure.hpp>

#include <numeric>
#include <string>

#include <poputil/exceptions.hpp>

namespace poputil {

namespace {

std::size_t ceilDiv(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

std::string listText(const std::vector<std::size_t> &v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i)
    s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

/// Throws unless every partition count is at least 1 (`who` names the public function).
void checkPartitionCounts(const char *who, const std::vector<std::size_t> &nPartitions) {
  for (std::size_t d = 0; d < nPartitions.size(); ++d)
    if (nPartitions[d] == 0)
      throw poplibs_error(std::string(who) + ": nPartitions " + listText(nPartitions) +
                          " asks for 0 partitions of dimension " + std::to_string(d));
}

} // namespace

unsigned detectInnermostGrouping(const poplar::Graph &graph, const poplar::Tensor &t) {
  if (t.rank() == 0)
    throw poplibs_error("poputil::detectInnermostGrouping: tensor " + t.shortString() +
                        " has rank 0, so it has no innermost dimension to group");
  if (t.numElements() == 0)
    return 1;
  // A group must start at a multiple of g in the flat tensor and no run (of one variable, or of
  // one tile) may end inside it; so g divides the row length and every run boundary.
  std::size_t g = t.dim(t.rank() - 1);
  std::size_t at = 0;
  poplar::VariableInterval previous{};
  bool first = true;
  for (const auto &r : t.getVarRegions()) {
    const bool continues =
        !first && r.var == previous.var && r.interval.begin() == previous.interval.end();
    if (!continues)
      g = std::gcd(g, at);
    at += r.interval.size();
    previous = r;
    first = false;
  }
  bool complete = true;
  for (const auto &tile : graph.getTileMapping(t, &complete))
    for (const auto &iv : tile) {
      g = std::gcd(g, iv.begin());
      g = std::gcd(g, iv.end());
    }
  return static_cast<unsigned>(g);
}

std::vector<GroupingInfo> detectDimGroupings(const poplar::Graph &graph, const poplar::Tensor &t) {
  if (t.rank() == 0)
    throw poplibs_error("poputil::detectDimGroupings: tensor " + t.shortString() +
                        " has rank 0, so it has no dimensions to group");
  std::vector<GroupingInfo> found;
  const unsigned rank = t.rank();
  // `grouped` keeps t's dimensions first (each divided by the groups taken from it) and the
  // groups found so far after them, the newest outermost, so flattening a dimension moved to
  // rank-1 with everything after it looks for a group on top of the groups already found.
  poplar::Tensor grouped = t;
  std::size_t groupedSoFar = 1;
  for (;;) {
    unsigned bestDim = 0;
    std::size_t best = 1;
    for (unsigned d = 0; d < rank; ++d) {
      const std::size_t size = grouped.dim(d);
      if (size == 1)
        continue;
      const auto candidate = grouped.dimRoll(d, rank - 1).flatten(rank - 1, grouped.rank());
      const std::size_t g = detectInnermostGrouping(graph, candidate);
      // Only a whole multiple of the groups already found extends them.
      const std::size_t extra = g % groupedSoFar == 0 ? std::gcd(g / groupedSoFar, size) : 1;
      if (extra > best) {
        best = extra;
        bestDim = d;
      }
    }
    if (best == 1)
      break;
    found.emplace_back(bestDim, static_cast<unsigned>(best));
    groupedSoFar *= best;
    const std::size_t size = grouped.dim(bestDim);
    grouped = grouped.reshapePartial(bestDim, bestDim + 1, {size / best, best})
                  .dimRoll(bestDim + 1, rank);
  }
  return found;
}

poplar::Tensor createPartitionableTensor(poplar::Graph &graph, const poplar::Type &type,
                                         const std::vector<std::size_t> &shape,
                                         const std::vector<std::size_t> &nPartitions,
                                         const poplar::DebugContext &debugContext) {
  if (shape.size() != nPartitions.size())
    throw poplibs_error("poputil::createPartitionableTensor: shape " + listText(shape) + " has " +
                        std::to_string(shape.size()) + " dimensions but nPartitions " +
                        listText(nPartitions) + " has " + std::to_string(nPartitions.size()));
  checkPartitionCounts("poputil::createPartitionableTensor", nPartitions);
  std::size_t total = 1;
  for (auto n : shape)
    total *= n;
  if (total == 0 || shape.empty())
    return graph.addVariable(type, shape, debugContext);

  // Per dimension, the sizes of the non-empty parts: whole parts of ceil(n/p), then the rest.
  const std::size_t rank = shape.size();
  std::vector<std::vector<std::size_t>> parts(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    const std::size_t step = ceilDiv(shape[d], nPartitions[d]);
    for (std::size_t begin = 0; begin < shape[d]; begin += step)
      parts[d].push_back(std::min(step, shape[d] - begin));
  }

  // One variable; each block is the next run of it, in row-major order of the block indices.
  poplar::Tensor flat = graph.addVariable(type, {total}, debugContext);
  std::vector<poplar::Tensor> blocks;
  std::vector<std::size_t> index(rank, 0), blockShape(rank);
  std::size_t offset = 0;
  for (;;) {
    std::size_t count = 1;
    for (std::size_t d = 0; d < rank; ++d) {
      blockShape[d] = parts[d][index[d]];
      count *= blockShape[d];
    }
    blocks.push_back(flat.slice(offset, offset + count).reshape(blockShape));
    offset += count;
    std::size_t d = rank;
    while (d > 0 && ++index[d - 1] == parts[d - 1].size())
      index[--d] = 0;
    if (d == 0)
      break;
  }

  // Stitch the blocks together, innermost dimension first: consecutive runs of parts[d].size()
  // blocks differ only in their index of dimension d.
  for (std::size_t d = rank; d-- > 0;) {
    const std::size_t n = parts[d].size();
    std::vector<poplar::Tensor> joined;
    for (std::size_t i = 0; i < blocks.size(); i += n)
      joined.push_back(
          poplar::concat(std::vector<poplar::Tensor>(blocks.begin() + i, blocks.begin() + i + n),
                         static_cast<unsigned>(d)));
    blocks = std::move(joined);
  }
  return blocks.front();
}

void iterateTensorPartitions(
    const poplar::Tensor &t, const std::vector<std::size_t> &nPartitions,
    const std::function<void(const std::vector<std::size_t> &i, const poplar::Tensor &s)> &f) {
  if (t.rank() != nPartitions.size())
    throw poplibs_error("poputil::iterateTensorPartitions: tensor " + t.shortString() +
                        " has rank " + std::to_string(t.rank()) + " but nPartitions " +
                        listText(nPartitions) + " has " + std::to_string(nPartitions.size()) +
                        " entries");
  checkPartitionCounts("poputil::iterateTensorPartitions", nPartitions);
  const auto &shape = t.shape();
  std::vector<std::size_t> index(shape.size(), 0);
  for (;;) {
    poplar::Tensor block = t;
    for (unsigned d = 0; d < shape.size(); ++d) {
      const std::size_t step = ceilDiv(shape[d], nPartitions[d]);
      block = block.slice(std::min(index[d] * step, shape[d]),
                          std::min((index[d] + 1) * step, shape[d]), d);
    }
    f(index, block);
    // Next index, the first dimension fastest.
    std::size_t d = 0;
    while (d < index.size() && ++index[d] == nPartitions[d])
      index[d++] = 0;
    if (d == index.size())
      break;
  }
}

} // namespace poputil
