// Compiler stage, tile-by-tile runs: runs of consecutive compute sets that each tile may execute
// back to back.
//
// A BSP superstep is exchange-in, compute, exchange-out. When a run of compute sets has no
// exchange-out and none of its vertices writes in place any memory that one of its exchange-ins
// reads, then nothing a tile does in the run is seen by another tile during the run: tile t's
// memory is written only by its own exchange-ins (into its own buffers) and its own vertices.
// Each tile may then do all of its work in the run, compute set after compute set, before or
// after the other tiles, and every byte ends up as it would after the separate supersteps. On
// the host this keeps a tile's data hot in one core's cache across the run (a matrix multiply's
// serial inner steps accumulate into the same output block) and saves a thread-pool phase per
// compute set. Only sets over the same tiles are joined (see sameTiles).
#include <algorithm>
#include <cstddef>
#include <vector>

#include "compiler/TileByTileRuns.hpp"

namespace poplar::compiler {

namespace {

/// Longest run considered: the hazard check grows with the run, and longer runs gain little.
constexpr std::size_t kMaxRun = 64;

/// Whether a compute set can be part of a run at all: no exchange-out, and its exchange-in
/// (if any) may already be done tile by tile.
bool runnable(const ComputeSetPlan &cs) {
  return cs.exchangeOut.empty() && (cs.exchangeIn.empty() || cs.exchangeInPerTile);
}

/// The memory a compute set's exchange-in reads, sorted.
std::vector<TileSpan> exchangeReads(const ComputeSetPlan &cs) {
  std::vector<TileSpan> reads;
  reads.reserve(cs.exchangeIn.ops.size());
  for (const auto &op : cs.exchangeIn.ops) {
    const auto [first, end] = op.sourceSpan();
    reads.push_back({op.src.tile, first, end});
  }
  std::sort(reads.begin(), reads.end());
  return reads;
}

/// Whether two compute sets have work on exactly the same tiles: then each tile's memory (its
/// output blocks, its exchange buffers) is what the next set works on again, so running a tile's
/// sets back to back keeps it in cache. Sets over different tiles gain nothing from it and lose
/// the per-set balance of work over the host threads.
bool sameTiles(const ComputeSetPlan &a, const ComputeSetPlan &b) {
  return std::equal(a.tiles.begin(), a.tiles.end(), b.tiles.begin(), b.tiles.end(),
                    [](const TileWork &x, const TileWork &y) { return x.tile == y.tile; });
}

std::vector<TileSpan> sorted(std::vector<TileSpan> spans) {
  std::sort(spans.begin(), spans.end());
  return spans;
}

/// Merges sorted `from` into sorted `to` (linear: runs stay cheap to check as they grow).
void mergeInto(std::vector<TileSpan> &to, const std::vector<TileSpan> &from) {
  const std::size_t mid = to.size();
  to.insert(to.end(), from.begin(), from.end());
  std::inplace_merge(to.begin(), to.begin() + static_cast<std::ptrdiff_t>(mid), to.end());
}

} // namespace

void planTileByTileRuns(CompilerContext &ctx) {
  auto &steps = ctx.result.steps;
  const auto &sets = ctx.result.computeSets;
  std::size_t i = 0;
  while (i < steps.size()) {
    if (steps[i].kind != StepKind::Execute) {
      ++i;
      continue;
    }
    std::size_t end = i + 1;
    if (runnable(sets[steps[i].index])) {
      std::vector<TileSpan> reads = exchangeReads(sets[steps[i].index]);
      std::vector<TileSpan> writes = sorted(ctx.directWrites[steps[i].index]);
      while (end < steps.size() && end - i < kMaxRun && steps[end].kind == StepKind::Execute &&
             runnable(sets[steps[end].index]) &&
             sameTiles(sets[steps[i].index], sets[steps[end].index])) {
        const unsigned cs = steps[end].index;
        const std::vector<TileSpan> r = exchangeReads(sets[cs]);
        const std::vector<TileSpan> w = sorted(ctx.directWrites[cs]);
        // Within one compute set exchangeInPerTile already excludes the hazard.
        if (overlapsSorted(r, writes) || overlapsSorted(reads, w))
          break;
        mergeInto(reads, r);
        mergeInto(writes, w);
        ++end;
      }
    }
    // Every suffix of a run is a run too, so a jump into its middle still finds its length.
    for (std::size_t s = i; s < end; ++s)
      steps[s].count = end - s;
    i = end;
  }
}

} // namespace poplar::compiler
