// Compiler stage, the exchange plan (see ExchangePlan.cpp).
#pragma once

#include "compiler/CompilerContext.hpp"

namespace poplar::compiler {

/// Exchange buffers and copy lists of every compute set planned by planVertexState, and the
/// vertex field pointers into them (or, where allowed, straight at the data).
void planExchange(CompilerContext &ctx);

} // namespace poplar::compiler
