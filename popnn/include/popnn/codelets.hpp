// Making popnn's vertex types available to a graph.
#pragma once

#include <poplar/Graph.hpp>

namespace popnn {

/// Registers the codelets popnn's functions use (popops' included, since popnn is built from
/// popops operations). Call once per graph before using popnn functions, as with Poplar.
void addCodelets(poplar::Graph &graph);

} // namespace popnn
