// Compiler stage, the flat step list (see ProgramFlattener.cpp).
#pragma once

#include "compiler/CompilerContext.hpp"

namespace poplar::compiler {

/// Turns the programs (and the functions they call) into CompiledGraph::steps with jumps, each
/// step's tensors resolved to tile addresses; checks what can only be checked per use (stream
/// types and sizes, copy shapes).
void flattenPrograms(CompilerContext &ctx, const std::vector<program::Program> &programs,
                     const ProgramUse &use);

} // namespace poplar::compiler
