// Making popops' vertex types available to a graph.
#pragma once

#include <poplar/Graph.hpp>

namespace popops {

/// Registers popops' built-in codelets so `graph` can add their vertices. Call once per graph
/// before using popops functions, as with Poplar.
void addCodelets(poplar::Graph &graph);

} // namespace popops
