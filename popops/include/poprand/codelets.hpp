// Making poprand's vertex types available to a graph.
#pragma once

#include <poplar/Graph.hpp>

namespace poprand {

/// Registers poprand's built-in codelets so `graph` can add their vertices. Call once per graph
/// before using poprand functions, as with Poplar.
void addCodelets(poplar::Graph &graph);

} // namespace poprand
