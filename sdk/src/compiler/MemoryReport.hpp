// Compiler stage, memory report: what each tile holds, and whether everything fits.
#pragma once

#include <string>

#include "compiler/CompilerContext.hpp"

namespace poplar::compiler {

/// Fills CompiledGraph::memory (bytes per tile by kind) and tileBytes (each tile's arena).
void recordMemory(CompilerContext &ctx);

/// Empty when every tile fits; else names the worst tile, its largest users (and, in all, its
/// variables, vertex state and exchange buffers, with the compute sets that put most vertex
/// state there) and how many other tiles overflow.
std::string outOfMemoryReport(const CompilerContext &ctx);

} // namespace poplar::compiler
