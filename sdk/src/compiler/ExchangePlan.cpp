// Compiler stage: the exchange plan. For every compute set: the copies that bring each vertex's
// inputs to its tile and take its outputs back, the exchange buffers they use, and the inputs
// the host may let a vertex read where they lie.
#include <algorithm>
#include <cstddef>
#include <map>
#include <tuple>

#include <poplar/exceptions.hpp>

#include "compiler/CopyListBuilder.hpp"
#include "compiler/ExchangePlan.hpp"
#include "compiler/TileSpan.hpp"

namespace poplar::compiler {

namespace {

using tessera::FieldDirection;

/// Whether no vertex of the set writes directly to memory that an exchange-in copy reads. Then
/// each tile may run its own exchange-in just before its vertices, and a vertex may even read an
/// input where it lies: either gives the bytes a separate exchange phase would. The writes
/// (one per output field) are merged into disjoint sorted spans and each copy's source span is
/// looked up in them, rather than listing and sorting a span per copy (millions of them).
bool exchangeReadsUnwritten(const CopyList &exchangeIn, std::vector<TileSpan> writes) {
  std::sort(writes.begin(), writes.end());
  std::vector<TileSpan> merged;
  for (const auto &w : writes) {
    if (!merged.empty() && merged.back().tile == w.tile && w.begin <= merged.back().end)
      merged.back().end = std::max(merged.back().end, w.end);
    else
      merged.push_back(w);
  }
  if (merged.empty())
    return true;
  for (const auto &op : exchangeIn.ops) {
    const auto [first, end] = op.sourceSpan();
    // The first written span on the copy's tile that ends after the read begins.
    const auto it =
        std::lower_bound(merged.begin(), merged.end(), TileSpan{op.src.tile, 0, first},
                         [](const TileSpan &x, const TileSpan &key) {
                           return x.tile != key.tile ? x.tile < key.tile : x.end <= key.end;
                         });
    if (it != merged.end() && it->tile == op.src.tile && it->begin < end)
      return false;
  }
  return true;
}

/// Per TileWork of the plan, its group in the exchange-in (or kNoGroup).
void assignTileExchangeInGroups(ComputeSetPlan &plan) {
  const CopyList &in = plan.exchangeIn;
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
  std::size_t pointer = 0; ///< Into the plan's pointer patches; points at the buffer until decided.
  TileAddress source;
};

/// The identity of an input's data: its pieces in tile memory, in tensor order. Two input
/// fields on one tile with the same key read the same bytes, so they can share one buffer.
using InputKey = std::vector<std::tuple<unsigned, std::uint64_t, std::uint64_t>>;

InputKey inputKey(const TensorImage &img) {
  InputKey key;
  key.reserve(img.pieces.size());
  for (const auto &piece : img.pieces)
    key.emplace_back(piece.at.tile, piece.at.offset, piece.bytes);
  return key;
}

} // namespace

void planExchange(CompilerContext &ctx) {
  const unsigned numTiles = ctx.allocator.numTiles();
  std::vector<std::uint64_t> base(numTiles), area(numTiles, 0);
  std::vector<std::string> areaOwner(numTiles);
  for (unsigned t = 0; t < numTiles; ++t)
    base[t] = alignUp(ctx.allocator.top(t), kTileAlign);

  for (std::size_t p = 0; p < ctx.result.computeSets.size(); ++p) {
    auto &plan = ctx.result.computeSets[p];
    std::map<unsigned, std::uint64_t> used; // per tile, bytes of this compute set's buffers
    // The exchange-in as the IPU does it; the copies of inputs a vertex may read where they lie
    // are marked (the host skips them if the set allows it).
    CopyListBuilder in, out;
    std::vector<TileSpan> directWrites;
    std::vector<ReadInPlaceCandidate> candidates;
    // Per tile, the buffers this set's input fields already fill, by what they hold: vertices
    // of a tile that read the same remote data (every row of a matrix-vector product reading
    // the vector) share one buffer and one set of copies, as the IPU's exchange would bring
    // the data to the tile once.
    std::map<std::pair<unsigned, InputKey>, TileAddress> sharedInputs;
    for (const auto &b : ctx.bindings[p]) {
      const unsigned tile = ctx.result.vertexObjects[b.objectIndex].tile;
      auto &patch = ctx.result.pointerPatches[b.patch];
      const TensorImage img = ctx.layout.image(b.tensor);
      const std::uint64_t n = b.tensor.numElements();
      if (img.bytes == 0) {
        pointAtNothing(patch, b.hasSize);
        continue;
      }
      if (img.pieces.size() == 1 && img.pieces[0].at.tile == tile) {
        pointAt(patch, img.pieces[0].at, b.hasSize, n);
        if (b.direction != FieldDirection::In)
          directWrites.push_back(
              {tile, img.pieces[0].at.offset, img.pieces[0].at.offset + img.bytes});
        continue;
      }
      // Not one local run: give the vertex a tile-local buffer filled by the exchange. A whole
      // aligned piece is as aligned as the buffer, so the vertex cannot tell the two apart and
      // the host may let it read the piece in place.
      const bool readableInPlace = b.direction == FieldDirection::In && img.pieces.size() == 1 &&
                                   img.pieces[0].at.offset % kTileAlign == 0;
      std::map<std::pair<unsigned, InputKey>, TileAddress>::iterator shared;
      if (b.direction == FieldDirection::In) {
        bool inserted = false;
        std::tie(shared, inserted) = sharedInputs.try_emplace({tile, inputKey(img)});
        if (!inserted) {
          pointAt(patch, shared->second, b.hasSize, n);
          if (readableInPlace)
            candidates.push_back({b.objectIndex, b.patch, img.pieces[0].at});
          continue;
        }
      }
      std::uint64_t &top = used[tile];
      top = alignUp(top, kTileAlign);
      const TileAddress buffer{tile, base[tile] + top};
      top += img.bytes;
      if (b.direction == FieldDirection::In)
        shared->second = buffer;
      pointAt(patch, buffer, b.hasSize, n);
      if (readableInPlace) {
        candidates.push_back({b.objectIndex, b.patch, img.pieces[0].at});
        in.add(img.pieces[0].at, buffer, img.bytes, /*marked=*/true);
        continue;
      }
      for (const auto &piece : img.pieces) {
        const TileAddress local{tile, buffer.offset + piece.hostOffset};
        if (b.direction != FieldDirection::Out)
          in.add(piece.at, local, piece.bytes);
        if (b.direction != FieldDirection::In)
          out.add(local, piece.at, piece.bytes);
      }
    }
    // The IPU copies every input into its buffer (exchangeIn, which the cost model and the
    // hazard checks see). On the host, when no vertex of the set writes what the exchange reads,
    // a whole-piece input is read where it lies: the same bytes, without the copy. The host then
    // skips the ops holding such copies, and makes the other copies of those ops on their own
    // (hostPartialCopies). Otherwise it makes every copy.
    std::vector<bool> marked;
    CopyList partial;
    plan.exchangeIn = in.build(&marked, &partial);
    plan.exchangeOut = out.build();
    plan.exchangeInPerTile =
        !plan.exchangeIn.empty() && exchangeReadsUnwritten(plan.exchangeIn, directWrites);
    if (plan.exchangeInPerTile) {
      for (const auto &c : candidates) {
        auto &patch = ctx.result.pointerPatches[c.pointer];
        patch.targetTile = c.source.tile;
        patch.targetOffset = offset32(c.source);
      }
      if (std::find(marked.begin(), marked.end(), true) != marked.end()) {
        plan.hostSkips = std::move(marked);
        if (!partial.empty())
          plan.hostPartialCopies = std::move(partial);
      }
      assignTileExchangeInGroups(plan);
    }
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
