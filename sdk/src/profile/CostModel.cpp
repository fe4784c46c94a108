#include "profile/CostModel.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace poplar::profile {

namespace {

std::uint64_t ceilDiv(std::uint64_t a, std::uint64_t b) { return b ? (a + b - 1) / b : a; }

/// Bytes each tile sends plus receives in one copy list. The IPU's exchange is a multicast:
/// any number of tiles may receive what one tile sends in the same cycles, so a sender pays once
/// for the same bytes going to many tiles (a per-channel parameter every tile of an activation
/// needs); each receiver still pays for what it takes in.
std::map<unsigned, std::uint64_t> trafficPerTile(const compiler::CopyList &list) {
  std::map<unsigned, std::uint64_t> perTile;
  using Send = std::tuple<unsigned, std::uint64_t, std::uint64_t, std::uint64_t, std::int64_t>;
  std::set<Send> sent;
  for (const auto &op : list.ops) {
    if (op.dst.tile == op.src.tile) { // a copy within one tile: no exchange, counted once
      perTile[op.src.tile] += op.totalBytes();
      continue;
    }
    perTile[op.dst.tile] += op.totalBytes();
    if (sent.insert({op.src.tile, op.src.offset, op.bytes, op.repeat, op.srcStride}).second)
      perTile[op.src.tile] += op.totalBytes();
  }
  return perTile;
}

std::uint64_t phaseCycles(const compiler::CopyList &list, const CostParameters &p) {
  std::uint64_t worst = 0;
  for (const auto &[tile, bytes] : trafficPerTile(list))
    worst = std::max(worst, bytes);
  return ceilDiv(worst, p.exchangeBytesPerCycle);
}

/// Bytes of `tensor` on its busiest tile.
std::uint64_t busiestTileBytes(const compiler::TensorImage &tensor) {
  std::map<unsigned, std::uint64_t> perTile;
  for (const auto &piece : tensor.pieces)
    perTile[piece.at.tile] += piece.bytes;
  std::uint64_t worst = 0;
  for (const auto &[tile, bytes] : perTile)
    worst = std::max(worst, bytes);
  return worst;
}

} // namespace

CostParameters costParameters(const Target &target) {
  CostParameters p;
  p.workers = std::max(1u, target.getNumWorkerContexts());
  p.exchangeBytesPerCycle = std::max(1u, target.getExchangeBytesPerCycle());
  p.syncCycles = target.getSyncCycles();
  return p;
}

ComputeSetCost estimateComputeSet(const compiler::ComputeSetPlan &cs,
                                  const std::vector<std::uint64_t> &vertexCycles,
                                  const CostParameters &p) {
  ComputeSetCost cost;
  std::vector<std::uint64_t> load(p.workers);
  for (const auto &tile : cs.tiles) {
    std::fill(load.begin(), load.end(), 0);
    std::uint64_t multiVertexCycles = 0;
    for (const auto &call : tile.calls) {
      const std::uint64_t c = vertexCycles[call.objectIndex];
      if (call.workers > 1) {
        multiVertexCycles += c * p.workers;
      } else {
        *std::min_element(load.begin(), load.end()) += c;
      }
    }
    const std::uint64_t cycles =
        multiVertexCycles + p.workers * *std::max_element(load.begin(), load.end());
    if (cycles > cost.computeCycles) {
      cost.computeCycles = cycles;
      cost.slowestTile = tile.tile;
    }
  }
  cost.exchangeCycles = phaseCycles(cs.exchangeIn, p) + phaseCycles(cs.exchangeOut, p);
  cost.exchangeBytes = cs.exchangeIn.totalBytes + cs.exchangeOut.totalBytes;
  cost.syncCycles = p.syncCycles * (cs.exchangeOut.empty() ? 1 : 2);
  // Each tile's buffers: filled by exchange-in (destination) and drained by exchange-out
  // (source); an InOut buffer appears in both, so take the larger per tile.
  std::map<unsigned, std::uint64_t> in, out;
  for (const auto &op : cs.exchangeIn.ops)
    in[op.dst.tile] += op.totalBytes();
  for (const auto &op : cs.exchangeOut.ops)
    out[op.src.tile] += op.totalBytes();
  for (const auto &[tile, bytes] : in)
    cost.exchangeBufferBytes += std::max(bytes, out.count(tile) ? out[tile] : 0);
  for (const auto &[tile, bytes] : out)
    if (!in.count(tile))
      cost.exchangeBufferBytes += bytes;
  return cost;
}

TransferCost estimateCopy(const compiler::TensorCopyPlan &copy, const CostParameters &p) {
  TransferCost cost;
  cost.bytes = copy.copies.totalBytes;
  cost.cycles = phaseCycles(copy.copies, p) + p.syncCycles;
  return cost;
}

TransferCost estimateStreamCopy(const compiler::TensorImage &tensor, const CostParameters &p) {
  TransferCost cost;
  cost.bytes = tensor.bytes;
  const auto host =
      static_cast<std::uint64_t>(static_cast<double>(tensor.bytes) / p.hostBytesPerCycle);
  cost.cycles =
      std::max(ceilDiv(busiestTileBytes(tensor), p.exchangeBytesPerCycle), host) + p.syncCycles;
  return cost;
}

TransferCost estimateRemoteCopy(const compiler::RemoteCopyPlan &copy, const CostParameters &p) {
  TransferCost cost;
  cost.bytes = copy.tensor.bytes;
  const auto streaming =
      static_cast<std::uint64_t>(static_cast<double>(copy.tensor.bytes) / p.streamingBytesPerCycle);
  cost.cycles =
      std::max(ceilDiv(busiestTileBytes(copy.tensor), p.exchangeBytesPerCycle), streaming) +
      p.syncCycles * (copy.hasOffset ? 2 : 1);
  return cost;
}

TransferCost estimateCollective(const compiler::CollectivePlan &c, unsigned replicas,
                                const CostParameters &p) {
  TransferCost t;
  if (c.op.groups.size) // a ring within each group, the groups side by side
    replicas = std::min<unsigned>(replicas, c.op.groups.size);
  if (replicas <= 1)
    return t;
  const double r = replicas;
  double bytes = 0;
  switch (c.op.kind) {
  case core::CrossReplicaKind::AllReduce:
    bytes = 2 * (r - 1) / r * double(c.src.bytes);
    break;
  case core::CrossReplicaKind::ReduceScatter:
    bytes = (r - 1) / r * double(c.src.bytes);
    break;
  case core::CrossReplicaKind::AllGather:
    bytes = (r - 1) * double(c.src.bytes);
    break;
  case core::CrossReplicaKind::AllToAll:
    bytes = (r - 1) / r * double(c.src.bytes);
    break;
  }
  const unsigned ringSteps =
      c.op.kind == core::CrossReplicaKind::AllReduce ? 2 * (replicas - 1) : replicas - 1;
  t.bytes = static_cast<std::uint64_t>(bytes);
  t.cycles = static_cast<std::uint64_t>(bytes / p.linkBytesPerCycle) +
             std::uint64_t(ringSteps) * p.syncCycles;
  return t;
}

} // namespace poplar::profile
