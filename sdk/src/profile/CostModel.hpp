// The IPU cost model (ARCHITECTURE.md decision 8): estimated IPU cycles per compute set, copy,
// stream copy and remote-buffer copy of a compiled graph, from vertex estimates, exchange bytes,
// streaming-memory bandwidth and sync latency.
//
// Units: vertex estimates are worker cycles (one worker context issues every `workers`-th tile
// cycle, barrel-scheduled), everything returned is tile cycles.
//  - compute, per tile: plain vertices go to the least-loaded worker in order, the tile takes
//    workers × (the busiest worker's load); a MultiVertex runs on every worker at once and adds
//    workers × its per-worker estimate. A compute set's compute cost is its slowest tile.
//  - exchange, per phase (in before compute, out after): max over tiles of the bytes the tile
//    sends plus receives, ÷ exchange bytes per cycle.
//  - sync: one BSP sync per compute set, plus one when it has an exchange-out phase.
#pragma once

#include <cstdint>
#include <vector>

#include <poplar/Target.hpp>

#include "compiler/CompiledGraph.hpp"

namespace poplar::profile {

struct CostParameters {
  unsigned workers = 6;
  unsigned exchangeBytesPerCycle = 4;
  unsigned syncCycles = 150;
  /// Host link (PCIe Gen4 x16 ≈ 16 GB/s at 1.33 GHz), shared by the whole IPU.
  double hostBytesPerCycle = 12;
  /// Streaming memory (remote buffers) as an IPU-M2000 reaches it through its gateway
  /// (≈ 20 GB/s per IPU at 1.33 GHz).
  double streamingBytesPerCycle = 15;
  /// What one IPU sends to its neighbour in a ring over IPU-Links (≈ 40 GB/s at 1.33 GHz).
  double linkBytesPerCycle = 30;
};
CostParameters costParameters(const Target &target);

/// Worker cycles of a vertex with no estimate of its own: a fixed overhead plus one cycle per
/// element of its fields (so a vertex with twice the data costs about twice as much).
inline constexpr std::uint64_t kDefaultVertexOverheadCycles = 20;
inline std::uint64_t defaultVertexCycles(std::uint64_t fieldElements) {
  return kDefaultVertexOverheadCycles + fieldElements;
}

struct ComputeSetCost {
  std::uint64_t computeCycles = 0;
  std::uint64_t exchangeCycles = 0;
  std::uint64_t syncCycles = 0;
  std::uint64_t exchangeBytes = 0;
  unsigned slowestTile = 0;
  std::uint64_t exchangeBufferBytes = 0; ///< Summed over tiles.
  std::uint64_t total() const { return computeCycles + exchangeCycles + syncCycles; }
};

/// `vertexCycles` holds one estimate (worker cycles) per CompiledGraph::vertexObjects entry.
ComputeSetCost estimateComputeSet(const compiler::ComputeSetPlan &cs,
                                  const std::vector<std::uint64_t> &vertexCycles,
                                  const CostParameters &p);

struct TransferCost {
  std::uint64_t cycles = 0;
  std::uint64_t bytes = 0;
};
/// An on-device Copy program: one exchange phase and a sync.
TransferCost estimateCopy(const compiler::TensorCopyPlan &copy, const CostParameters &p);
/// A collective among `replicas` replicas as a ring over IPU-Links: each replica sends
/// 2(R-1)/R of the data for an all-reduce, (R-1)/R for a reduce-scatter, (R-1)× its part for
/// an all-gather, plus a sync per ring step.
TransferCost estimateCollective(const compiler::CollectivePlan &collective, unsigned replicas,
                                const CostParameters &p);
/// A stream copy to or from the host.
TransferCost estimateStreamCopy(const compiler::TensorImage &tensor, const CostParameters &p);
/// A Copy between a remote buffer and a tensor: the rows' bytes ÷ the streaming-memory
/// bandwidth, or the busiest tile's bytes ÷ the exchange bandwidth when that is slower, plus a
/// sync; with an offset tensor, one more sync (its indices go to the host first).
TransferCost estimateRemoteCopy(const compiler::RemoteCopyPlan &copy, const CostParameters &p);

} // namespace poplar::profile
