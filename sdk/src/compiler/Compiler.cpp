// The compiler pipeline (ARCHITECTURE.md, "compiler"): one stage after another, each in its own
// file, each reading what the ones before it produced.
#include "compiler/Compiler.hpp"

#include <iterator>

#include "compiler/CompilerContext.hpp"
#include "compiler/CycleEstimates.hpp"
#include "compiler/ExchangePlan.hpp"
#include "compiler/Liveness.hpp"
#include "compiler/MemoryReport.hpp"
#include "compiler/ProgramFlattener.hpp"
#include "compiler/TileByTileRuns.hpp"
#include "compiler/Validate.hpp"
#include "compiler/VertexState.hpp"

namespace poplar::compiler {

namespace {

/// What the host side of the engine needs besides steps: the target's shape, initial contents,
/// streams, remote buffers and the tensors registered for host reads and writes.
void recordHostInterface(CompilerContext &ctx) {
  const auto &graph = ctx.graph;
  auto &r = ctx.result;
  r.numTiles = graph.target.getNumTiles();
  r.numWorkerContexts = graph.target.getNumWorkerContexts();
  r.bytesPerTile = graph.target.getBytesPerTile();
  // Variables' initial values first, then what vertex state added (plain vector members).
  auto variables = ctx.layout.initialData(r.initialBytes);
  r.initialData.insert(r.initialData.begin(), std::make_move_iterator(variables.begin()),
                       std::make_move_iterator(variables.end()));
  for (const auto &s : graph.streams)
    r.streams.push_back({s.handle, s.type, s.numElements * s.type.size(), s.toDevice});
  for (const auto &b : graph.remoteBuffers)
    r.remoteBuffers.push_back(
        {b.handle, b.type, b.numElements, b.repeats, b.numElements * b.type.size()});
  for (const auto &[handle, t] : graph.hostWrites)
    r.hostWrites.push_back({handle, ctx.layout.image(t)});
  for (const auto &[handle, t] : graph.hostReads)
    r.hostReads.push_back({handle, ctx.layout.image(t)});
  r.replicationFactor = graph.replicationFactor;
  for (const auto &t : graph.replicationIndexTensors)
    r.replicationIndex.push_back(ctx.layout.image(t));
}

} // namespace

CompileResult compile(const core::GraphData &graph, const std::vector<program::Program> &programs,
                      const CompileOptions &options) {
  constexpr int kStages = 8;
  int done = 0;
  auto stageDone = [&] {
    if (options.progress)
      options.progress(++done, kStages);
  };
  if (options.progress)
    options.progress(0, kStages);

  CompilerContext ctx(graph);
  const ProgramUse use = validatePrograms(graph, programs);
  stageDone();
  const Lifetimes lifetimes = analyseLifetimes(graph, programs);
  stageDone();
  ctx.layout = layOutVariables(graph, ctx.allocator, lifetimes);
  stageDone();
  planVertexState(ctx, use.computeSets);
  stageDone();
  planExchange(ctx);
  stageDone();
  flattenPrograms(ctx, programs, use); // resolves every step's operands to tile addresses
  planTileByTileRuns(ctx);
  stageDone();
  recordHostInterface(ctx);
  estimateVertexCycles(ctx);
  stageDone();
  recordMemory(ctx);
  std::string outOfMemory = outOfMemoryReport(ctx);
  stageDone();
  return {std::move(ctx.result), std::move(outOfMemory)};
}

} // namespace poplar::compiler
