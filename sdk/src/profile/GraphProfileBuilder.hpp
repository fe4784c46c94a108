// Builds the graph profile of a compiled graph: target, memory per tile, variables, compute
// sets and steps, then prices compute sets and steps with the cost model.
#pragma once

#include <cstdint>
#include <vector>

#include <tessera/profile/Profile.hpp>

#include "compiler/CompiledGraph.hpp"
#include "core/GraphData.hpp"

namespace poplar::profile {

/// Everything but the cycle estimates. Reads the graph only here (an Engine may outlive it).
tessera::profile::GraphProfile describeGraph(const core::GraphData &graph,
                                             const compiler::CompiledGraph &plan);

/// Fills compute set and step estimates from per-object vertex cycles.
void priceGraph(tessera::profile::GraphProfile &profile, const compiler::CompiledGraph &plan,
                const std::vector<std::uint64_t> &vertexCycles);

} // namespace poplar::profile
