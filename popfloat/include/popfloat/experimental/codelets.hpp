// popfloat's vertices. Tessera builds none of them (the gfloat emulation is not provided), so
// adding them only checks the graph; programs that call this as PopLibs' do keep working.
#pragma once

#include <poplar/Graph.hpp>

namespace popfloat {
namespace experimental {

void addCodelets(poplar::Graph &graph);

} // namespace experimental
} // namespace popfloat
