// State shared by the compiler's passes while one graph is compiled.
#pragma once

#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <poplar/exceptions.hpp>

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

  /// Vertex type → index into result.vertexTypes.
  std::unordered_map<const tessera::VertexTypeInfo *, std::uint32_t> vertexTypeIndex;

  /// A vertex field slot still to be pointed at its tensor (decided by the exchange pass).
  struct PendingBinding {
    unsigned objectIndex;
    std::uint32_t patch; ///< Into result.pointerPatches: its slot is set, its target is not.
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

/// `at.offset` as vertex objects and their patches hold it (32 bits); throws
/// graph_memory_allocation_error when it lies beyond the first 4 GiB of its tile.
inline std::uint32_t offset32(const TileAddress &at) {
  if (at.offset >= kMaxTileBytes)
    throw graph_memory_allocation_error(
        "tile " + std::to_string(at.tile) + ": vertex state, and the data vertices point at, " +
        "must lie in a tile's first 4 GiB (needed at byte " + std::to_string(at.offset) + ")");
  return static_cast<std::uint32_t>(at.offset);
}

/// Points patch `p` at `target`, with `elements` after the pointer when `hasSize`.
inline void pointAt(PointerPatch &p, const TileAddress &target, bool hasSize,
                    std::uint64_t elements) {
  p.targetTile = target.tile;
  p.targetOffset = offset32(target);
  if (hasSize && elements >= PointerPatch::kNoSize)
    throw graph_memory_allocation_error("tile " + std::to_string(target.tile) + ": a field of " +
                                        std::to_string(elements) +
                                        " elements is more than a vertex can address");
  p.size = hasSize ? static_cast<std::uint32_t>(elements) : PointerPatch::kNoSize;
}

/// Leaves patch `p`'s pointer null (an empty field), with a size of 0 when `hasSize`.
inline void pointAtNothing(PointerPatch &p, bool hasSize) {
  p.targetTile = PointerPatch::kNullTarget;
  p.targetOffset = 0;
  p.size = hasSize ? 0 : PointerPatch::kNoSize;
}

} // namespace poplar::compiler
