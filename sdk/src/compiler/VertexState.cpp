// Compiler stage: vertex state. Places each vertex object of every compute set the programs
// execute in its tile's memory, fills its plain members and records which field slots still
// need pointing at their data (the exchange stage decides where that data will be).
#include <algorithm>
#include <cstddef>
#include <iostream>
#include <mutex>
#include <set>
#include <utility>

#include <poplar/exceptions.hpp>

#include "compiler/VertexState.hpp"

namespace poplar::compiler {

namespace {

using tessera::FieldKind;

// The engine writes field views as raw (pointer[, size]) pairs; these pin the layouts down.
static_assert(sizeof(poplar::detail::Ref<float>) == sizeof(void *));
static_assert(sizeof(poplar::detail::Span<float>) == 2 * sizeof(void *));
static_assert(offsetof(poplar::detail::Span<float>, size_) == sizeof(void *));
static_assert(sizeof(poplar::detail::SpanList<float>) == 2 * sizeof(void *));
constexpr std::uint64_t kSpanBytes = sizeof(poplar::detail::Span<float>);

std::string fieldOf(const core::GraphData &g, unsigned vertexId, const std::string &field) {
  return "field '" + field + "' of " + core::describeVertex(g, vertexId);
}

/// Poplar runs a vertex whose plain member was never given a value with whatever its memory
/// holds; Tessera runs it with zero (an empty vector for a plain Vector) and says so on stderr,
/// once per vertex type and member in the process, since it is almost always a mistake.
void warnUnsetPlainMember(const core::GraphData &g, unsigned vertexId, const std::string &type,
                          const std::string &member, bool isVector) {
  static std::mutex mutex;
  static std::set<std::pair<std::string, std::string>> warned;
  {
    std::lock_guard lock(mutex);
    if (!warned.emplace(type, member).second)
      return;
  }
  std::cerr << "tessera: warning: member '" << member << "' of vertex type '" << type
            << "' is never given a value (Graph::setInitialValue); "
            << core::describeVertex(g, vertexId)
            << (isVector ? " and any others run with it empty" : " and any others run with it as 0")
            << " (Poplar leaves it unspecified)\n";
}

/// The index of `type` in the plan's table of vertex types, added when new.
std::uint32_t typeIndex(CompilerContext &ctx,
                        const std::shared_ptr<const tessera::VertexTypeInfo> &type) {
  auto [it, added] = ctx.vertexTypeIndex.try_emplace(
      type.get(), static_cast<std::uint32_t>(ctx.result.vertexTypes.size()));
  if (added)
    ctx.result.vertexTypes.push_back(type);
  return it->second;
}

/// `size` as the first index of `more` new entries of a 32-bit indexed array named `what`.
std::uint32_t index32(std::size_t size, std::uint64_t more, const char *what) {
  if (size + more >= (std::uint64_t(1) << 32))
    throw graph_memory_allocation_error(std::string("the graph's vertices need more than 2^32 ") +
                                        what + "; Tessera holds at most that many");
  return static_cast<std::uint32_t>(size);
}

/// Pointer patches of vertex `v`: one per field but plain members, plus one per entry of a
/// VectorList's table. The bindings among them (what the exchange stage points) are counted
/// in `bindings`.
std::uint64_t countPatches(const core::VertexData &v, std::uint64_t &bindings) {
  std::uint64_t patches = 0;
  for (std::size_t f = 0; f < v.type->fields.size(); ++f)
    switch (v.type->fields[f].kind) {
    case FieldKind::Plain:
      break;
    case FieldKind::VectorList:
      patches += 1 + v.fields[f].tensors.size();
      bindings += v.fields[f].tensors.size();
      break;
    case FieldKind::Scalar:
    case FieldKind::Vector:
      ++bindings;
      patches += 1;
      break;
    case FieldKind::PlainVector:
      patches += 1;
      break;
    }
  return patches;
}

/// Reserves the plan's flat arrays for the vertices of `computeSets` at once: they hold millions
/// of entries, and growing them by doubling would leave up to half their bytes unused.
void reserveVertexObjects(CompilerContext &ctx, const std::vector<unsigned> &computeSets) {
  const auto &g = ctx.graph;
  std::uint64_t objects = 0, patches = 0, values = 0, valueBytes = 0, bindings = 0;
  for (unsigned csId : computeSets)
    for (unsigned vid : g.computeSets[csId].vertices) {
      const auto &v = g.vertices[vid];
      ++objects;
      patches += countPatches(v, bindings);
      for (std::size_t f = 0; f < v.type->fields.size(); ++f)
        if (v.type->fields[f].kind == FieldKind::Plain) {
          ++values;
          valueBytes += v.fields[f].connected ? v.fields[f].value.size()
                                              : v.type->fields[f].elementType.size();
        }
    }
  auto &r = ctx.result;
  r.vertexObjects.reserve(r.vertexObjects.size() + objects);
  r.pointerPatches.reserve(r.pointerPatches.size() + patches);
  r.valuePatches.reserve(r.valuePatches.size() + values);
  r.valueBytes.reserve(r.valueBytes.size() + valueBytes);
}

} // namespace

void planVertexState(CompilerContext &ctx, const std::vector<unsigned> &computeSets) {
  const auto &g = ctx.graph;
  const unsigned workers = g.target.getNumWorkerContexts();
  reserveVertexObjects(ctx, computeSets);
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
    std::uint64_t numBindings = 0;
    for (unsigned vid : cs.vertices)
      countPatches(g.vertices[vid], numBindings);
    bindings.reserve(numBindings);

    for (unsigned vid : cs.vertices) {
      const auto &v = g.vertices[vid];
      const auto &type = *v.type;
      if (v.tile == core::kNoTile)
        throw invalid_tile_mapping(core::describeVertex(g, vid) +
                                   " is not mapped to a tile (call setTileMapping on it)");
      const unsigned tile = v.tile;
      auto &r = ctx.result;
      const unsigned objectIndex = static_cast<unsigned>(r.vertexObjects.size());
      VertexObject obj;
      obj.vertexId = vid;
      obj.computeSetPlan = planIndex;
      obj.type = typeIndex(ctx, v.type);
      obj.tile = tile;
      const std::uint64_t at = ctx.allocator.allocateVertexState(
          tile, type.size, std::max<std::uint64_t>(type.align, kTileAlign), csId, true);
      obj.offset = offset32({tile, at});
      if (v.perfEstimate)
        r.perfEstimates.emplace_back(objectIndex, *v.perfEstimate);

      // The object's pointer patches, in field order. Those the exchange stage points are left
      // pending.
      std::uint64_t unused = 0;
      const std::uint64_t numPatches = countPatches(v, unused);
      obj.pointerBegin = index32(r.pointerPatches.size(), numPatches, "pointer patches");
      obj.pointerCount = static_cast<std::uint32_t>(numPatches);
      r.pointerPatches.resize(r.pointerPatches.size() + numPatches);
      std::uint32_t nextPatch = obj.pointerBegin;
      // The next patch, for the slot at `slotAt` (a byte offset in the tile).
      auto patchAt = [&](std::uint64_t slotAt) -> PointerPatch & {
        auto &p = r.pointerPatches[nextPatch++];
        p.slot = static_cast<std::uint32_t>(offset32({tile, slotAt}) - obj.offset);
        return p;
      };
      obj.valueBegin = index32(r.valuePatches.size(), type.fields.size(), "value patches");

      for (std::size_t f = 0; f < type.fields.size(); ++f) {
        const auto &info = type.fields[f];
        const std::uint64_t slot = at + info.offset;
        const bool plain = info.kind == FieldKind::Plain || info.kind == FieldKind::PlainVector;
        core::FieldState unsetPlain;
        if (plain && !v.fields[f].connected) {
          warnUnsetPlainMember(g, vid, type.name, info.name, info.kind == FieldKind::PlainVector);
          unsetPlain.connected = true;
          if (info.kind == FieldKind::Plain)
            unsetPlain.value.assign(info.elementType.size(), 0);
        }
        const auto &state = unsetPlain.connected ? unsetPlain : v.fields[f];
        if (!state.connected)
          throw graph_connection_error(
              fieldOf(g, vid, info.name) + " is not connected to a tensor" +
              (info.kind == FieldKind::VectorList && state.size
                   ? " (some of its " + std::to_string(*state.size) + " elements are unset)"
                   : ""));
        switch (info.kind) {
        case FieldKind::Scalar:
        case FieldKind::Vector: {
          const std::uint32_t patch = nextPatch;
          patchAt(slot);
          bindings.push_back({objectIndex, patch, state.tensors.front(),
                              info.kind == FieldKind::Vector, info.direction});
          break;
        }
        case FieldKind::VectorList: {
          const std::uint64_t n = state.tensors.size();
          if (n == 0) {
            pointAtNothing(patchAt(slot), true);
            break;
          }
          const std::uint64_t table =
              ctx.allocator.allocateVertexState(tile, n * kSpanBytes, kTileAlign, csId, false);
          pointAt(patchAt(slot), {tile, table}, true, n);
          for (std::uint64_t i = 0; i < n; ++i) {
            const std::uint32_t patch = nextPatch;
            patchAt(table + i * kSpanBytes);
            bindings.push_back({objectIndex, patch, state.tensors[i], true, info.direction});
          }
          break;
        }
        case FieldKind::Plain: {
          // A member right after the previous one extends its patch: one copy at load.
          const auto offset = static_cast<std::uint32_t>(info.offset);
          const auto length = static_cast<std::uint32_t>(state.value.size());
          if (obj.valueCount &&
              r.valuePatches.back().offset + r.valuePatches.back().length == offset)
            r.valuePatches.back().length += length;
          else {
            r.valuePatches.push_back({r.valueBytes.size(), offset, length});
            ++obj.valueCount;
          }
          r.valueBytes.insert(r.valueBytes.end(), state.value.data(),
                              state.value.data() + state.value.size());
          break;
        }
        case FieldKind::PlainVector: {
          const std::uint64_t bytes = state.value.size();
          const std::uint64_t n = bytes / info.elementType.size();
          if (n == 0) {
            pointAtNothing(patchAt(slot), true);
            break;
          }
          const std::uint64_t data =
              ctx.allocator.allocateVertexState(tile, bytes, kTileAlign, csId, false);
          r.initialData.push_back({{tile, data}, r.initialBytes.size(), bytes});
          r.initialBytes.insert(r.initialBytes.end(), state.value.data(),
                                state.value.data() + state.value.size());
          pointAt(patchAt(slot), {tile, data}, true, n);
          break;
        }
        }
      }
      r.vertexObjects.push_back(obj);
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

} // namespace poplar::compiler
