// The one way a graph becomes an executable (compileGraph, and Engine when its cache misses).
#pragma once

#include <vector>

#include <poplar/Executable.hpp>
#include <poplar/Graph.hpp>

#include "engine/EngineOptions.hpp"
#include "executable/ExecutableData.hpp"
#include "profile/ProfileSession.hpp"

namespace poplar::executable {

/// The engine options that drive profiling.
inline profile::ProfileOptions profileOptionsOf(const engine::EngineOptions &o) {
  return {o.outputGraphProfile, o.outputExecutionProfile, o.instrument, o.reportDirectory};
}

/// Throws graph_program_compilation_error unless `graph` is a top-level graph (a virtual graph
/// shares its parent's content, so this comes before any cache look-up).
void requireTopLevelGraph(const Graph &graph);

/// Compiles `graph` and `programs` with already parsed engine options. When a tile overflows
/// (and debug.allowOutOfMemory is not set), writes the graph profile if one was asked for, so
/// the overflow can be inspected, then rethrows.
std::unique_ptr<Executable::Impl> compile(const Graph &graph,
                                          const std::vector<program::Program> &programs,
                                          const engine::EngineOptions &options,
                                          ProgressFunc progress);

} // namespace poplar::executable
