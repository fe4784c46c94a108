#include "compiler/MemoryLayout.hpp"

#include <algorithm>

#include <poplar/exceptions.hpp>

namespace poplar::compiler {

std::uint64_t TileAllocator::allocate(unsigned tile, std::uint64_t bytes, std::uint64_t align,
                                      Use use, std::string what) {
  const std::uint64_t offset = alignUp(top_[tile], align);
  top_[tile] = offset + bytes;
  users_[tile].push_back({bytes, use, std::move(what)});
  return offset;
}

std::uint64_t TileAllocator::allocateVariable(unsigned tile, std::uint64_t bytes,
                                              std::uint64_t align, unsigned variable,
                                              std::uint64_t begin, std::uint64_t end) {
  const std::uint64_t offset = alignUp(top_[tile], align);
  top_[tile] = offset + bytes;
  variables_[tile].push_back({bytes, begin, end, variable});
  return offset;
}

void TileAllocator::placeVariable(unsigned tile, std::uint64_t offset, std::uint64_t bytes,
                                  unsigned variable, std::uint64_t begin, std::uint64_t end) {
  top_[tile] = std::max(top_[tile], offset + bytes);
  variables_[tile].push_back({bytes, begin, end, variable});
}

std::uint64_t TileAllocator::allocateVertexState(unsigned tile, std::uint64_t bytes,
                                                 std::uint64_t align, unsigned computeSet,
                                                 bool newVertex) {
  const std::uint64_t offset = alignUp(top_[tile], align);
  top_[tile] = offset + bytes;
  // A compute set's vertices are planned one after another, so its record is the tile's last.
  auto &records = vertexState_[tile];
  if (!records.empty() && records.back().computeSet == computeSet) {
    records.back().bytes += bytes;
    records.back().vertices += newVertex;
  } else {
    records.push_back({bytes, computeSet, 1});
  }
  return offset;
}

MemoryLayout layOutVariables(const core::GraphData &graph, TileAllocator &allocator,
                             const Lifetimes &lifetimes) {
  MemoryLayout layout(graph);
  layout.place(allocator, lifetimes);
  return layout;
}

void MemoryLayout::place(TileAllocator &allocator, const Lifetimes &lifetimes) {
  const core::GraphData &graph = *graph_;
  std::vector<std::vector<Pending>> shared(allocator.numTiles());
  for (unsigned v = 0; v < graph.variables.size(); ++v) {
    const auto &var = graph.variables[v];
    // Only for error messages: a graph has many variables and no string is needed otherwise.
    auto name = [&] { return var.name.empty() ? "var" + std::to_string(v) : var.name; };
    std::size_t expect = 0;
    for (const auto &e : var.mapping.entries()) {
      if (e.begin != expect)
        break;
      expect = e.end;
    }
    if (expect != var.numElements) {
      // Find the first unmapped element for the message.
      std::size_t first = 0;
      for (const auto &e : var.mapping.entries()) {
        if (e.begin != first)
          break;
        first = e.end;
      }
      throw invalid_tile_mapping("variable '" + name() + "' (" + var.type.toString() + ", " +
                                 std::to_string(var.numElements) +
                                 " elements) is not completely mapped to tiles: element " +
                                 std::to_string(first) + " has no tile");
    }
    const std::uint64_t elemSize = var.type.size();
    for (const auto &e : var.mapping.entries()) {
      if (e.tile >= allocator.numTiles())
        throw invalid_tile_mapping("variable '" + name() + "' is mapped to tile " +
                                   std::to_string(e.tile) + " but the target has " +
                                   std::to_string(allocator.numTiles()) + " tiles");
      const std::uint64_t bytes = (e.end - e.begin) * elemSize;
      if (!lifetimes.persistent[v]) {
        shared[e.tile].push_back({v, blocks_[v].size(), bytes});
        blocks_[v].push_back({e.begin, e.end, TileAddress{e.tile, 0}});
        continue;
      }
      const std::uint64_t off =
          allocator.allocateVariable(e.tile, bytes, kTileAlign, v, e.begin, e.end);
      blocks_[v].push_back({e.begin, e.end, TileAddress{e.tile, off}});
    }
  }
  for (unsigned t = 0; t < allocator.numTiles(); ++t)
    if (!shared[t].empty())
      placeShared(allocator, t, shared[t], lifetimes);
}

void MemoryLayout::placeShared(TileAllocator &allocator, unsigned tile,
                               std::vector<Pending> &pending, const Lifetimes &lifetimes) {
  // In order of when they are first needed (then creation): a variable whose life ended
  // before the next one starts leaves its bytes free for it.
  auto start = [&](const Pending &p) { return lifetimes.spans[p.var].front().first; };
  std::stable_sort(pending.begin(), pending.end(),
                   [&](const Pending &a, const Pending &b) { return start(a) < start(b); });
  struct Placed {
    std::uint64_t begin, end;
    unsigned var;
    std::uint64_t lastStep;
  };
  // `live`: placed variables whose lifetime has not ended before the current one starts (those
  // that have cannot meet it, nor any later one).
  std::vector<Placed> live, busy;
  const std::uint64_t base = alignUp(allocator.top(tile), kTileAlign);
  for (auto &p : pending) {
    const std::uint64_t first = start(p);
    std::erase_if(live, [&](const Placed &q) { return q.lastStep < first; });
    busy.clear();
    for (const auto &q : live)
      if (lifetimes.meet(q.var, p.var))
        busy.push_back(q);
    std::sort(busy.begin(), busy.end(),
              [](const Placed &a, const Placed &b) { return a.begin < b.begin; });
    std::uint64_t at = base;
    for (const auto &q : busy) {
      if (at + p.bytes <= q.begin)
        break;
      at = std::max(at, alignUp(q.end, kTileAlign));
    }
    live.push_back({at, at + p.bytes, p.var, lifetimes.spans[p.var].back().second});
    auto &block = blocks_[p.var][p.block];
    block.at = TileAddress{tile, at};
    allocator.placeVariable(tile, at, p.bytes, p.var, block.begin, block.end);
  }
}

TensorImage MemoryLayout::image(const Tensor &t) const {
  TensorImage img;
  const auto &d = t.data();
  img.type = d.type;
  img.shape = d.shape;
  img.bytes = d.numElements * d.type.size();
  forEachPiece(d, [&](std::uint64_t hostOffset, TileAddress at, std::uint64_t bytes) {
    if (!img.pieces.empty()) {
      auto &last = img.pieces.back();
      if (last.at.tile == at.tile && last.at.offset + last.bytes == at.offset &&
          last.hostOffset + last.bytes == hostOffset) {
        last.bytes += bytes;
        return;
      }
    }
    img.pieces.push_back({at, hostOffset, bytes});
  });
  return img;
}

std::vector<CompiledGraph::InitialData>
MemoryLayout::initialData(std::vector<unsigned char> &pool) const {
  std::vector<CompiledGraph::InitialData> out;
  std::uint64_t total = 0;
  for (const auto &var : graph_->variables)
    total += var.initialValue.size();
  pool.reserve(pool.size() + total);
  for (unsigned v = 0; v < graph_->variables.size(); ++v) {
    const auto &var = graph_->variables[v];
    if (var.initialValue.empty())
      continue;
    const std::uint64_t elemSize = var.type.size();
    for (const auto &blk : blocks_[v]) {
      const auto *src = var.initialValue.data() + blk.begin * elemSize;
      const std::uint64_t bytes = (blk.end - blk.begin) * elemSize;
      out.push_back({blk.at, pool.size(), bytes});
      pool.insert(pool.end(), src, src + bytes);
    }
  }
  return out;
}

} // namespace poplar::compiler
