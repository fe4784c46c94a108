// cycleCount and cycleStamp (<poplar/CycleCount.hpp>): program nodes the flattener turns into
// CycleCounter steps; the engine's step loop keeps the clock.
#include <poplar/CycleCount.hpp>

#include <memory>

#include <poplar/exceptions.hpp>

#include "core/ProgramNode.hpp"

namespace poplar {

namespace {

using core::ProgramNode;

void requireTile(const Graph &graph, unsigned tile, const char *what) {
  const unsigned tiles = graph.getTarget().getNumTiles();
  if (tile >= tiles)
    throw invalid_tile_mapping(std::string(what) + ": tile " + std::to_string(tile) +
                               " is out of range; this graph has " + std::to_string(tiles) +
                               " tiles (0 to " + std::to_string(tiles - 1) + ")");
}

/// The 2 × UNSIGNED_INT result (low word, high word) on `tile`.
Tensor counterTensor(Graph &graph, unsigned tile, const DebugContext &dc, const char *name) {
  Tensor t = graph.addVariable(UNSIGNED_INT, {2}, {dc, name});
  graph.setTileMapping(t, tile);
  return t;
}

std::shared_ptr<ProgramNode> node(ProgramNode::Kind kind, const DebugContext &dc, const char *name,
                                  const Tensor &result) {
  auto n = std::make_shared<ProgramNode>();
  n->kind = kind;
  n->name = DebugContext(dc, name).getPathName();
  n->dst = result;
  return n;
}

} // namespace

Tensor cycleCount(Graph &graph, program::Sequence &prog, unsigned tile, SyncType,
                  const DebugContext &debugContext) {
  requireTile(graph, tile, "cycleCount");
  Tensor result = counterTensor(graph, tile, debugContext, "cycleCount");
  auto n = node(ProgramNode::Kind::CycleCount, debugContext, "cycleCount", result);
  n->children.push_back(prog);
  prog = program::Sequence{program::Program(std::move(n))};
  return result;
}

Tensor cycleCount(Graph &graph, program::Sequence &prog, unsigned tile,
                  const DebugContext &debugContext) {
  return cycleCount(graph, prog, tile, SyncType::INTERNAL, debugContext);
}

Tensor cycleStamp(Graph &graph, program::Sequence &prog, unsigned tile, SyncType,
                  const DebugContext &debugContext) {
  requireTile(graph, tile, "cycleStamp");
  Tensor result = counterTensor(graph, tile, debugContext, "cycleStamp");
  prog.add(
      program::Program(node(ProgramNode::Kind::CycleStamp, debugContext, "cycleStamp", result)));
  return result;
}

std::vector<Tensor> cycleStamp(Graph &graph, program::Sequence &prog,
                               const std::vector<unsigned> &tiles, SyncType syncType,
                               const DebugContext &debugContext) {
  for (unsigned tile : tiles) // all or nothing: check every tile before adding any stamp
    requireTile(graph, tile, "cycleStamp");
  std::vector<Tensor> stamps;
  for (unsigned tile : tiles)
    stamps.push_back(cycleStamp(graph, prog, tile, syncType, debugContext));
  return stamps;
}

} // namespace poplar
