// Runs a collective across the replicas one engine holds: every replica's source tensor is read
// into the host, combined, and written to every replica's destination.
#pragma once

#include <optional>
#include <vector>

#include "compiler/CompiledGraph.hpp"
#include "engine/CrossInstance.hpp"
#include "engine/TileMemory.hpp"

namespace poplar::engine {

/// The replicas a collective combines: this engine's (in order, global indices offset …), and
/// when other processes run the rest, the transport to them.
struct ReplicaGroup {
  std::vector<const TileMemory *> local;
  unsigned offset = 0; ///< global index of local[0]
  unsigned total = 1;  ///< replicas in the whole run
  CrossInstance *across = nullptr;
};

/// Combines the replicas as `collective` says, within the groups it names (one group of every
/// replica by default). Reductions run element by element over the group's global replicas in
/// ascending order, in the element type (FLOAT in float, HALF accumulated in
/// float and rounded once, integers in their own type), so the result depends on the data only
/// — never on threads or on how replicas are spread over processes.
void runCollective(const compiler::CollectivePlan &collective, const ReplicaGroup &replicas);

/// Checks that every instance has reached the same collective `step` with the same sizes (or,
/// with no step, the end of the run); otherwise throws runtime_error naming both places. Every
/// instance calls it at the same points, so a disagreement is reported, never waited on.
void agreeAcrossInstances(CrossInstance &across, const compiler::CompiledGraph &plan,
                          std::optional<std::size_t> step);

} // namespace poplar::engine
