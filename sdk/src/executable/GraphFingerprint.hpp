// The executable cache's key: a hash of everything compilation reads.
#pragma once

#include <string>
#include <vector>

#include <poplar/Program.hpp>

#include "core/GraphData.hpp"

namespace poplar::executable {

/// 32 hex digits identifying what compiling `graph` and `programs` with `compileSettings` (the
/// options that change the plan) produces on this SDK build: the target, every variable (type,
/// shape, name, tile mapping, initial value), every vertex (type and its layout, tile, compute
/// set, field connections down to the variable regions, values, estimates), streams, host reads
/// and writes, functions and the program trees (shared nodes as shared).
std::string graphFingerprint(const core::GraphData &graph,
                             const std::vector<program::Program> &programs,
                             const std::string &compileSettings);

} // namespace poplar::executable
