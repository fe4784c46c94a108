// Timing programs in IPU cycles: cycleCount wraps a program and measures it, cycleStamp reads
// the clock at a point of a program.
//
// Which cycles: Tessera runs on a CPU, so these are not measured. They are the IPU cost model's
// estimates (ARCHITECTURE.md decision 8; the same figures as Engine::estimateProgramCycles and
// the execution profile) of the steps the engine actually executes, added up as it executes
// them: a Repeat(n, body) counts its body n times, If and Switch only the branch taken, a
// RepeatWhile as many passes as it makes. Each replica keeps its own clock of 64 bits, starting
// at 0 when the engine is loaded and running on through every later run. The values depend
// only on the compiled graph and the path the program takes, never on the host or its number
// of threads. The stamps themselves cost no cycles, and neither does the requested SyncType
// (every Tessera step already ends in a sync that the cost model prices). Vertex estimates are
// those of Engine::getVertexCycleEstimates (setPerfEstimate, else the vertex class's own
// estimate, else the cost model's default).
#pragma once

#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/SyncType.hpp>
#include <poplar/Tensor.hpp>

namespace poplar {

/// Makes `prog` a program that runs what `prog` held and then writes the cycles that took
/// into the returned tensor: 2 UNSIGNED_INT elements, the low then the high 32 bits of the
/// 64-bit count, mapped to `tile`. (`prog` is replaced by a new Sequence: programs added to it
/// afterwards run after the timed part; other copies of the old handle are not timed.)
/// Throws `invalid_tile_mapping` when `tile` is not a tile of `graph`.
Tensor cycleCount(Graph &graph, program::Sequence &prog, unsigned tile, SyncType syncType,
                  const DebugContext &debugContext = {});

/// The form of earlier SDKs, without a SyncType (as SyncType::INTERNAL).
Tensor cycleCount(Graph &graph, program::Sequence &prog, unsigned tile,
                  const DebugContext &debugContext = {});

/// Appends to `prog` a read of the clock: when it runs, the returned tensor (2 UNSIGNED_INT,
/// low word first, mapped to `tile`) gets the cycles this replica has run since load. Later
/// stamps never read less than earlier ones. Throws `invalid_tile_mapping` for a bad tile.
Tensor cycleStamp(Graph &graph, program::Sequence &prog, unsigned tile, SyncType syncType,
                  const DebugContext &debugContext = {});

/// One stamp per tile of `tiles`, all taken at the same point of `prog` (the cost model runs
/// every tile in lock-step, so they hold the same value), in the order of `tiles`.
std::vector<Tensor> cycleStamp(Graph &graph, program::Sequence &prog,
                               const std::vector<unsigned> &tiles, SyncType syncType,
                               const DebugContext &debugContext = {});

} // namespace poplar
