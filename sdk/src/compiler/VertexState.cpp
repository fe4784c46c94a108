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
        const TileAddress slot{tile, obj.at.offset + info.offset};
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
        case FieldKind::Vector:
          bindings.push_back({vid, objectIndex, slot, state.tensors.front(),
                              info.kind == FieldKind::Vector, info.direction});
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
                                info.direction});
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

} // namespace poplar::compiler
