// State shared by the compiler's passes while one graph is compiled.
#pragma once

#include <map>
#include <set>
#include <vector>

#include "compiler/CompiledGraph.hpp"
#include "compiler/MemoryLayout.hpp"
#include "compiler/TileSpan.hpp"
#include "compiler/Validate.hpp"
#include "core/ProgramNode.hpp"

namespace poplar::compiler {

struct CompilerContext {
  explicit CompilerContext(const core::GraphData &g)
      : graph(g), allocator(g.target.getNumTiles()), layout(g) {}

  const core::GraphData &graph;
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
  };
  /// Per compute set plan: its pending bindings, in vertex order.
  std::vector<std::vector<PendingBinding>> bindings;
  /// Per compute set plan (filled by planExchange): the tile memory its vertices write in
  /// place (not through exchange buffers).
  std::vector<std::vector<TileSpan>> directWrites;
};

} // namespace poplar::compiler
