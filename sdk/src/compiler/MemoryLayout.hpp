// Where every variable element lives: per-tile placement of variable blocks, and the
// bookkeeping of who uses each tile's memory (for out-of-memory reports).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <poplar/Tensor.hpp>

#include "compiler/CompiledGraph.hpp"
#include "compiler/Liveness.hpp"
#include "core/GraphData.hpp"
#include "core/TensorData.hpp"

namespace poplar::compiler {

/// Bytes every allocation in tile memory is aligned to (the IPU's 64-bit data path).
inline constexpr std::uint64_t kTileAlign = 8;

inline std::uint64_t alignUp(std::uint64_t x, std::uint64_t a) { return (x + a - 1) / a * a; }

/// Per-tile bump allocation with a record of each allocation's owner.
class TileAllocator {
public:
  enum class Use { Variable, VertexState, Exchange };
  /// An exchange area, named for memory reports.
  struct User {
    std::uint64_t bytes;
    Use use;
    std::string what;
  };
  /// A mapped interval [begin, end) of variable `variable` (32 bytes: a graph has hundreds of
  /// thousands; reports name the variable only when they are printed).
  struct VariableUse {
    std::uint64_t bytes;
    std::uint64_t begin, end;
    std::uint32_t variable; ///< core::GraphData::variables index.
  };
  /// The vertex state of one compute set on a tile: its vertices' objects, VectorList tables
  /// and vector values, summed (16 bytes: a graph has millions of (tile, compute set) pairs, so
  /// reports name the compute set only when they are printed).
  struct VertexStateUse {
    std::uint64_t bytes;
    std::uint32_t computeSet; ///< core::GraphData::computeSets index.
    std::uint32_t vertices;
  };

  explicit TileAllocator(unsigned numTiles)
      : top_(numTiles, 0), users_(numTiles), variables_(numTiles), vertexState_(numTiles) {}

  std::uint64_t allocate(unsigned tile, std::uint64_t bytes, std::uint64_t align, Use use,
                         std::string what);
  /// Allocates the elements [begin, end) of variable `variable` that live on `tile`.
  std::uint64_t allocateVariable(unsigned tile, std::uint64_t bytes, std::uint64_t align,
                                 unsigned variable, std::uint64_t begin, std::uint64_t end);
  /// Records variable elements at `offset` (which may share bytes with other variables whose
  /// contents are never needed at the same time), raising the tile's top if they end above it.
  void placeVariable(unsigned tile, std::uint64_t offset, std::uint64_t bytes, unsigned variable,
                     std::uint64_t begin, std::uint64_t end);
  /// Allocates state of a vertex (its object when `newVertex`, else a VectorList table or vector
  /// value of the last one) of compute set `computeSet`. The tile's record of that compute set's
  /// vertex state grows rather than one record per vertex: a graph has millions of vertices.
  std::uint64_t allocateVertexState(unsigned tile, std::uint64_t bytes, std::uint64_t align,
                                    unsigned computeSet, bool newVertex);
  std::uint64_t top(unsigned tile) const { return top_[tile]; }
  void setTop(unsigned tile, std::uint64_t top) { top_[tile] = top; }
  /// Exchange areas on `tile`, in allocation order.
  const std::vector<User> &users(unsigned tile) const { return users_[tile]; }
  /// Variable intervals on `tile`, in allocation order.
  const std::vector<VariableUse> &variables(unsigned tile) const { return variables_[tile]; }
  /// Vertex state on `tile`, per compute set in the order they were planned.
  const std::vector<VertexStateUse> &vertexState(unsigned tile) const { return vertexState_[tile]; }
  unsigned numTiles() const { return static_cast<unsigned>(top_.size()); }

private:
  std::vector<std::uint64_t> top_;
  std::vector<std::vector<User>> users_;
  std::vector<std::vector<VariableUse>> variables_;
  std::vector<std::vector<VertexStateUse>> vertexState_;
};

/// Where every byte of every variable lives: per variable, its mapped intervals and their tile
/// addresses (what layOutVariables decided).
class MemoryLayout {
public:
  struct Block {
    std::size_t begin;
    std::size_t end;
    TileAddress at;
  };

  /// An empty layout of `graph`'s variables (layOutVariables fills it).
  explicit MemoryLayout(const core::GraphData &graph)
      : graph_(&graph), blocks_(graph.variables.size()) {}

  /// Calls fn(tensorByteOffset, address, bytes) for each run of `t`'s bytes, in tensor order.
  template <class Fn> void forEachPiece(const core::TensorData &t, Fn &&fn) const;
  /// The pieces of `t` with their host-image offsets.
  TensorImage image(const Tensor &t) const;
  /// Where initial values must be written when the engine loads; their bytes are appended to
  /// `pool` (CompiledGraph::initialBytes).
  std::vector<CompiledGraph::InitialData> initialData(std::vector<unsigned char> &pool) const;

private:
  struct Pending {
    unsigned var;
    std::size_t block;
    std::uint64_t bytes;
  };
  void placeShared(TileAllocator &allocator, unsigned tile, std::vector<Pending> &pending,
                   const Lifetimes &lifetimes);

  friend MemoryLayout layOutVariables(const core::GraphData &, TileAllocator &, const Lifetimes &);
  void place(TileAllocator &allocator, const Lifetimes &lifetimes);

  const core::GraphData *graph_;
  std::vector<std::vector<Block>> blocks_; ///< Per variable, sorted by element.
};

template <class Fn> void MemoryLayout::forEachPiece(const core::TensorData &t, Fn &&fn) const {
  const std::uint64_t elemSize = t.type.size();
  std::uint64_t at = 0;
  // Contiguous pieces, strided runs expanded (the pieces are byte ranges of tile memory).
  core::forEachUnitRun(t.regions, [&](unsigned var, std::size_t rb, std::size_t re) {
    const auto &blocks = blocks_[var];
    // First block ending after rb.
    std::size_t lo = 0, hi = blocks.size();
    while (lo < hi) {
      std::size_t mid = (lo + hi) / 2;
      if (blocks[mid].end <= rb)
        lo = mid + 1;
      else
        hi = mid;
    }
    std::size_t b = rb;
    for (std::size_t i = lo; b < re; ++i) {
      const Block &blk = blocks[i];
      const std::size_t e = std::min(re, blk.end);
      fn(at, TileAddress{blk.at.tile, blk.at.offset + (b - blk.begin) * elemSize},
         (e - b) * elemSize);
      at += (e - b) * elemSize;
      b = e;
    }
  });
}

/// Compiler stage, tile memory layout: places each variable's mapped intervals in its tiles'
/// memory: persistent variables first, one after another, then the others above them, each at
/// the lowest offset not used by a variable whose lifetime meets its own. Throws
/// `invalid_tile_mapping` naming the first variable with an unmapped element.
MemoryLayout layOutVariables(const core::GraphData &graph, TileAllocator &allocator,
                             const Lifetimes &lifetimes);

} // namespace poplar::compiler
