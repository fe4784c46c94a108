// Turns a graph and its programs into a CompiledGraph (ARCHITECTURE.md, "compiler").
#pragma once

#include <functional>
#include <vector>

#include <poplar/Program.hpp>

#include "compiler/CompiledGraph.hpp"
#include "core/GraphData.hpp"

namespace poplar::compiler {

struct CompileOptions {
  /// Report out-of-memory tiles instead of failing (debug.allowOutOfMemory).
  bool allowOutOfMemory = false;
  /// Called with (done, total) as compilation proceeds.
  std::function<void(int, int)> progress;
  /// Called once memory is laid out, before the out-of-memory check (so a profile can still
  /// show what overflowed).
  std::function<void(const CompiledGraph &)> laidOut;
};

CompiledGraph compile(const core::GraphData &graph, const std::vector<program::Program> &programs,
                      const CompileOptions &options);

} // namespace poplar::compiler
