// Compiler stage, cycle estimates: what the IPU cost model says each vertex object costs.
#pragma once

#include "compiler/CompilerContext.hpp"

namespace poplar::compiler {

/// Fills CompiledGraph::defaultVertexCycles: per vertex object, the cost model's estimate from
/// its fields' element counts. (Graph::setPerfEstimate is kept per object and wins; a vertex
/// class's own cycleEstimate() needs the constructed object, so the engine asks it at load.)
void estimateVertexCycles(CompilerContext &ctx);

} // namespace poplar::compiler
