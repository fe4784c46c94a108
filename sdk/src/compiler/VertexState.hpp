// Compiler stage, vertex state (see VertexState.cpp).
#pragma once

#include "compiler/CompilerContext.hpp"

namespace poplar::compiler {

/// Places the vertex objects of `computeSets` (the ones the programs execute) in tile memory
/// and records, per compute set, which field slots the exchange stage must point at data.
void planVertexState(CompilerContext &ctx, const std::vector<unsigned> &computeSets);

} // namespace poplar::compiler
