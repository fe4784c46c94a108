// popfloat's vertices: the gfloat casts of CastToGfloat.hpp and the vertex that fills their params
// tensor. Call once per graph before adding gfloat casts to it.
#pragma once

#include <poplar/Graph.hpp>

namespace popfloat {
namespace experimental {

/// Makes popfloat's vertex types known to `graph`.
void addCodelets(poplar::Graph &graph);

} // namespace experimental
} // namespace popfloat
