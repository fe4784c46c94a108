// Turns a graph and its programs into a CompiledGraph (ARCHITECTURE.md, "compiler").
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <poplar/Program.hpp>

#include "compiler/CompiledGraph.hpp"
#include "core/GraphData.hpp"

namespace poplar::compiler {

struct CompileOptions {
  /// Called with (stagesDone, stages) as compilation proceeds.
  std::function<void(int, int)> progress;
};

struct CompileResult {
  CompiledGraph plan;      ///< Complete even when a tile overflows (profiles show the overflow).
  std::string outOfMemory; ///< Empty when every tile fits; else what overflows, in words.
};

/// Runs the pipeline: validate → liveness → tile memory layout → vertex state → exchange plan
/// → flat step list with resolved addresses → tile-by-tile runs → host interface and cycle
/// estimates → memory report. Throws for graphs that cannot compile (unmapped tensors, objects
/// of another graph, ...); a graph that does not fit is not an error here (see outOfMemory).
CompileResult compile(const core::GraphData &graph, const std::vector<program::Program> &programs,
                      const CompileOptions &options);

} // namespace poplar::compiler
