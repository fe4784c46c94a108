// State shared by the compiler's passes while one graph is compiled.
#pragma once

#include <map>
#include <set>
#include <vector>

#include "compiler/CompiledGraph.hpp"
#include "compiler/Compiler.hpp"
#include "compiler/MemoryLayout.hpp"
#include "compiler/TileSpan.hpp"
#include "core/ProgramNode.hpp"

namespace poplar::compiler {

struct CompilerContext {
  CompilerContext(const core::GraphData &g, const CompileOptions &o, const Lifetimes &lifetimes)
      : graph(g), options(o), allocator(g.target.getNumTiles()), layout(g, allocator, lifetimes) {}

  const core::GraphData &graph;
  const CompileOptions &options;
  TileAllocator allocator;
  MemoryLayout layout;
  CompiledGraph result;

  /// Compute set id → index into result.computeSets, for the sets programs execute.
  std::map<unsigned, unsigned> computeSetPlan;

  /// A vertex field slot still to be pointed at its tensor (decided by the exchange pass).
  struct PendingBinding {
    unsigned vertexId;
    unsigned objectIndex;
    TileAddress slot;
    Tensor tensor;
    bool hasSize;
    tessera::FieldDirection direction;
    std::string field;
  };
  /// Per compute set plan: its pending bindings, in vertex order.
  std::vector<std::vector<PendingBinding>> bindings;
  /// Per compute set plan (filled by planExchange): the tile memory its vertices write in
  /// place (not through exchange buffers).
  std::vector<std::vector<TileSpan>> directWrites;
};

/// Pass 1: walks the programs, checks every object they name belongs to the graph, and lists
/// the compute sets and functions they use.
struct ProgramUse {
  std::vector<unsigned> computeSets; ///< In first-use order.
  std::vector<unsigned> functions;
  /// How many places refer to each program node (shared nodes are compiled once).
  std::map<const core::ProgramNode *, unsigned> references;
};
ProgramUse findProgramUse(const core::GraphData &graph,
                          const std::vector<program::Program> &programs);

/// Pass 2: vertex objects of every used compute set (vertex state memory).
void planVertexState(CompilerContext &ctx, const std::vector<unsigned> &computeSets);
/// Pass 3: exchange buffers and copy lists of every used compute set.
void planExchange(CompilerContext &ctx);
/// Pass 4: the flat step list.
void flattenPrograms(CompilerContext &ctx, const std::vector<program::Program> &programs,
                     const ProgramUse &use);
/// Pass 5: marks runs of consecutive Execute steps that may run tile by tile (Step::count).
void planTileByTileRuns(CompilerContext &ctx);

} // namespace poplar::compiler
