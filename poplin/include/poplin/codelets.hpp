// Making poplin's vertex types available to a graph.
#pragma once

#include <poplar/Graph.hpp>

namespace poplin {

/// Registers poplin's built-in codelets (block matrix products and partials reductions) so
/// `graph` can add their vertices. Call once per graph before using poplin, as with Poplar.
void addCodelets(poplar::Graph &graph);

} // namespace poplin
