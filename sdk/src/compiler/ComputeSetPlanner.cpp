// Vertex state and exchange for each compute set a program executes.
#include <algorithm>
#include <cstddef>

#include <poplar/exceptions.hpp>

#include "compiler/CompilerContext.hpp"
#include "compiler/CopyListBuilder.hpp"
#include "compiler/TileSpan.hpp"

namespace poplar::compiler {

namespace {

using tessera::FieldDirection;
using tessera::FieldKind;

// The engine writes field views as raw (pointer[, size]) pairs; these pin the layouts down.
static_assert(sizeof(poplar::detail::Ref<float>) == sizeof(void *));
static_assert(sizeof(poplar::detail::Span<float>) == 2 * sizeof(void *));
static_assert(offsetof(poplar::detail::Span<float>, size_) == sizeof(void *));
static_assert(sizeof(poplar::detail::SpanList<float>) == 2 * sizeof(void *));
constexpr std::uint64_t kSpanBytes = sizeof(poplar::detail::Span<float>);

/// Whether no vertex of the set writes directly to memory that an exchange-in copy reads. Then
/// each tile may run its own exchange-in just before its vertices, and a vertex may even read an
/// input where it lies: either gives the bytes a separate exchange phase would.
bool exchangeReadsUnwritten(const CopyList &exchangeIn, const std::vector<TileSpan> &directWrites) {
  std::vector<TileSpan> reads;
  reads.reserve(exchangeIn.ops.size());
  for (const auto &op : exchangeIn.ops) {
    const auto [first, end] = op.sourceSpan();
    reads.push_back({op.src.tile, first, end});
  }
  return !overlaps(reads, directWrites);
}

/// Per TileWork of the plan, its group in the host's exchange-in (or kNoGroup).
void assignTileExchangeInGroups(ComputeSetPlan &plan) {
  const CopyList &in = plan.hostExchangeIn;
  plan.tileExchangeInGroup.assign(plan.tiles.size(), ComputeSetPlan::kNoGroup);
  std::size_t g = 0;
  for (std::size_t t = 0; t < plan.tiles.size(); ++t) {
    // Groups and tile work are both sorted by tile; a group's tile is its copies' destination.
    while (g < in.numGroups() && in.ops[in.groupBegin[g]].dst.tile < plan.tiles[t].tile)
      ++g;
    if (g < in.numGroups() && in.ops[in.groupBegin[g]].dst.tile == plan.tiles[t].tile)
      plan.tileExchangeInGroup[t] = g;
  }
}

/// An input field whose data is one contiguous piece on another tile: the exchange would copy
/// it whole into the field's buffer, and the host may let the vertex read it in place instead.
struct ReadInPlaceCandidate {
  unsigned objectIndex = 0;
  std::size_t pointer = 0; ///< Into the object's pointers; it points at the buffer until decided.
  TileAddress source;
  TileAddress buffer;
  std::uint64_t bytes = 0;
};

std::string fieldOf(const core::GraphData &g, unsigned vertexId, const std::string &field) {
  return "field '" + field + "' of " + core::describeVertex(g, vertexId);
}

} // namespace

void planVertexState(CompilerContext &ctx, const std::vector<unsigned> &computeSets) {
  const auto &g = ctx.graph;
  const unsigned workers = g.target.getNumWorkerContexts();
  for (unsigned csId : computeSets) {
    const auto &cs = g.computeSets[csId];
    const unsigned planIndex = static_cast<unsigned>(ctx.result.computeSets.size());
    ctx.computeSetPlan[csId] = planIndex;
    ComputeSetPlan plan;
    plan.computeSet = csId;
    plan.name = cs.name;
    plan.numVertices = cs.vertices.size();
    std::map<unsigned, TileWork> tiles;
    std::vector<CompilerContext::PendingBinding> bindings;

    for (unsigned vid : cs.vertices) {
      const auto &v = g.vertices[vid];
      const auto &type = *v.type;
      if (v.tile == core::kNoTile)
        throw invalid_tile_mapping(core::describeVertex(g, vid) +
                                   " is not mapped to a tile (call setTileMapping on it)");
      const unsigned tile = v.tile;
      VertexObject obj;
      obj.vertexId = vid;
      obj.computeSetPlan = planIndex;
      obj.type = v.type;
      obj.perfEstimate = v.perfEstimate;
      obj.at = {tile, ctx.allocator.allocateVertexState(
                          tile, type.size, std::max<std::uint64_t>(type.align, kTileAlign), csId,
                          cs.name, true)};
      const unsigned objectIndex = static_cast<unsigned>(ctx.result.vertexObjects.size());

      for (std::size_t f = 0; f < type.fields.size(); ++f) {
        const auto &info = type.fields[f];
        const auto &state = v.fields[f];
        const TileAddress slot{tile, obj.at.offset + info.offset};
        if (!state.connected)
          throw graph_connection_error(
              fieldOf(g, vid, info.name) + " is " +
              (info.kind == FieldKind::Plain || info.kind == FieldKind::PlainVector
                   ? std::string("never given a value (use setInitialValue)")
                   : "not connected to a tensor") +
              (info.kind == FieldKind::VectorList && state.size
                   ? " (some of its " + std::to_string(*state.size) + " elements are unset)"
                   : ""));
        switch (info.kind) {
        case FieldKind::Scalar:
        case FieldKind::Vector:
          bindings.push_back({vid, objectIndex, slot, state.tensors.front(),
                              info.kind == FieldKind::Vector, info.direction, info.name});
          break;
        case FieldKind::VectorList: {
          const std::uint64_t n = state.tensors.size();
          if (n == 0) {
            obj.pointers.push_back({slot, {}, true, 0, true});
            break;
          }
          const std::uint64_t table = ctx.allocator.allocateVertexState(
              tile, n * kSpanBytes, kTileAlign, csId, cs.name, false);
          obj.pointers.push_back({slot, {tile, table}, true, n, false});
          for (std::uint64_t i = 0; i < n; ++i)
            bindings.push_back({vid,
                                objectIndex,
                                {tile, table + i * kSpanBytes},
                                state.tensors[i],
                                true,
                                info.direction,
                                info.name + "[" + std::to_string(i) + "]"});
          break;
        }
        case FieldKind::Plain:
          obj.values.push_back({info.offset, state.value});
          break;
        case FieldKind::PlainVector: {
          const std::uint64_t bytes = state.value.size();
          const std::uint64_t n = bytes / info.elementType.size();
          if (n == 0) {
            obj.pointers.push_back({slot, {}, true, 0, true});
            break;
          }
          const std::uint64_t at =
              ctx.allocator.allocateVertexState(tile, bytes, kTileAlign, csId, cs.name, false);
          ctx.result.initialData.push_back({{tile, at}, state.value});
          obj.pointers.push_back({slot, {tile, at}, true, n, false});
          break;
        }
        }
      }
      ctx.result.vertexObjects.push_back(std::move(obj));
      auto &work = tiles[tile];
      work.tile = tile;
      work.calls.push_back({objectIndex, type.isMultiVertex ? workers : 1u});
    }
    for (auto &[tile, work] : tiles)
      plan.tiles.push_back(std::move(work));
    ctx.result.computeSets.push_back(std::move(plan));
    ctx.bindings.push_back(std::move(bindings));
  }
}

void planExchange(CompilerContext &ctx) {
  const unsigned numTiles = ctx.allocator.numTiles();
  std::vector<std::uint64_t> base(numTiles), area(numTiles, 0);
  std::vector<std::string> areaOwner(numTiles);
  for (unsigned t = 0; t < numTiles; ++t)
    base[t] = alignUp(ctx.allocator.top(t), kTileAlign);

  for (std::size_t p = 0; p < ctx.result.computeSets.size(); ++p) {
    auto &plan = ctx.result.computeSets[p];
    std::map<unsigned, std::uint64_t> used; // per tile, bytes of this compute set's buffers
    CopyListBuilder all, host, out;         // exchange-in as the IPU does it, as the host does it
    std::vector<TileSpan> directWrites;
    std::vector<ReadInPlaceCandidate> candidates;
    for (const auto &b : ctx.bindings[p]) {
      auto &obj = ctx.result.vertexObjects[b.objectIndex];
      const unsigned tile = obj.at.tile;
      const TensorImage img = ctx.layout.image(b.tensor);
      const std::uint64_t n = b.tensor.numElements();
      if (img.bytes == 0) {
        obj.pointers.push_back({b.slot, {}, b.hasSize, 0, true});
        continue;
      }
      if (img.pieces.size() == 1 && img.pieces[0].at.tile == tile) {
        obj.pointers.push_back({b.slot, img.pieces[0].at, b.hasSize, n, false});
        if (b.direction != FieldDirection::In)
          directWrites.push_back(
              {tile, img.pieces[0].at.offset, img.pieces[0].at.offset + img.bytes});
        continue;
      }
      // Not one local run: give the vertex a tile-local buffer filled by the exchange.
      std::uint64_t &top = used[tile];
      top = alignUp(top, kTileAlign);
      const TileAddress buffer{tile, base[tile] + top};
      top += img.bytes;
      obj.pointers.push_back({b.slot, buffer, b.hasSize, n, false});
      if (b.direction == FieldDirection::In && img.pieces.size() == 1 &&
          img.pieces[0].at.offset % kTileAlign == 0) {
        // As aligned as the buffer, so the vertex cannot tell the two apart.
        candidates.push_back(
            {b.objectIndex, obj.pointers.size() - 1, img.pieces[0].at, buffer, img.bytes});
        all.add(img.pieces[0].at, buffer, img.bytes);
        continue;
      }
      for (const auto &piece : img.pieces) {
        const TileAddress local{tile, buffer.offset + piece.hostOffset};
        if (b.direction != FieldDirection::Out) {
          all.add(piece.at, local, piece.bytes);
          host.add(piece.at, local, piece.bytes);
        }
        if (b.direction != FieldDirection::In)
          out.add(local, piece.at, piece.bytes);
      }
    }
    // The IPU copies every input into its buffer (exchangeIn, which the cost model and the
    // hazard checks see). On the host, when no vertex of the set writes what the exchange reads,
    // a whole-piece input is read where it lies: the same bytes, without the copy.
    plan.exchangeIn = all.build();
    plan.exchangeOut = out.build();
    plan.exchangeInPerTile =
        !plan.exchangeIn.empty() && exchangeReadsUnwritten(plan.exchangeIn, directWrites);
    for (const auto &c : candidates) {
      if (plan.exchangeInPerTile)
        ctx.result.vertexObjects[c.objectIndex].pointers[c.pointer].target = c.source;
      else
        host.add(c.source, c.buffer, c.bytes);
    }
    plan.hostExchangeIn = host.build();
    if (plan.exchangeInPerTile)
      assignTileExchangeInGroups(plan);
    ctx.directWrites.push_back(std::move(directWrites));
    for (const auto &[tile, bytes] : used)
      if (bytes > area[tile]) {
        area[tile] = bytes;
        areaOwner[tile] = plan.name;
      }
  }
  ctx.bindings.clear();
  for (unsigned t = 0; t < numTiles; ++t)
    if (area[t]) {
      const std::uint64_t at = ctx.allocator.allocate(
          t, area[t], kTileAlign, TileAllocator::Use::Exchange,
          "exchange buffers (shared by all compute sets; largest: '" + areaOwner[t] + "')");
      (void)at; // equals base[t] by construction
    }
}

} // namespace poplar::compiler
