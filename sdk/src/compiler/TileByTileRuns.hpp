// Compiler stage, tile-by-tile runs (see TileByTileRuns.cpp).
#pragma once

#include "compiler/CompilerContext.hpp"

namespace poplar::compiler {

/// Marks runs of consecutive Execute steps that may run tile by tile (Step::count): each tile
/// doing its part of every one of them in turn gives the same bytes as superstep after
/// superstep. Only sets with identical tile lists are joined: the engine runs a run by tile
/// index, the same index in every set of it.
void planTileByTileRuns(CompilerContext &ctx);

} // namespace poplar::compiler
