// Runs a collective across the replicas one engine holds: every replica's source tensor is read
// into the host, combined, and written to every replica's destination.
#pragma once

#include <vector>

#include "compiler/CompiledGraph.hpp"
#include "engine/TileMemory.hpp"

namespace poplar::engine {

/// Combines `replicas` (in replica order) as `collective` says. Reductions run element by
/// element over replicas 0, 1, …, R-1 in that order, in the element type (FLOAT in float, HALF
/// accumulated in float and rounded once, integers in their own type), so the result depends on
/// the data only — never on threads or on how replicas are spread over processes.
void runCollective(const compiler::CollectivePlan &collective,
                   const std::vector<const TileMemory *> &replicas);

} // namespace poplar::engine
