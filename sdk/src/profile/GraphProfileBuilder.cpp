#include "profile/GraphProfileBuilder.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <poplar/Version.hpp>

#include "profile/CostModel.hpp"

namespace poplar::profile {

namespace tp = tessera::profile;
using compiler::StepKind;

namespace {

/// Variables listed in a profile, largest first (enough to see what fills memory).
constexpr std::size_t kMaxVariables = 1000;

const char *stepKindName(StepKind k) {
  static const char *const kNames[] = {
      "Execute",       "Copy",          "StreamIn", "StreamOut",    "Jump",         "JumpIfZero",
      "JumpIfNonZero", "LoopInit",      "LoopNext", "Switch",       "Call",         "Return",
      "Print",         "Abort",         "AbortIf",  "CrossReplica", "CycleCounter", "SetFloatMode",
      "SaveFloatMode", "LoadFloatMode", "RemoteIn", "RemoteOut",    "End"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<std::size_t>(StepKind::End) + 1);
  return kNames[static_cast<int>(k)];
}

tp::TargetInfo targetInfo(const Target &t) {
  tp::TargetInfo info;
  info.arch = t.getTargetArchString();
  info.numIPUs = t.getNumIPUs();
  info.tilesPerIPU = t.getTilesPerIPU();
  info.numTiles = t.getNumTiles();
  info.workerContexts = t.getNumWorkerContexts();
  info.bytesPerTile = t.getBytesPerTile();
  info.clockHz = t.getTileClockFrequency();
  info.exchangeBytesPerCycle = t.getExchangeBytesPerCycle();
  info.syncCycles = t.getSyncCycles();
  return info;
}

CostParameters parameters(const tp::TargetInfo &t) {
  CostParameters p;
  p.workers = std::max(1u, t.workerContexts);
  p.exchangeBytesPerCycle = std::max(1u, t.exchangeBytesPerCycle);
  p.syncCycles = t.syncCycles;
  return p;
}

} // namespace

tp::GraphProfile describeGraph(const core::GraphData &graph, const compiler::CompiledGraph &plan) {
  tp::GraphProfile p;
  p.sdkVersion = versionString();
  p.target = targetInfo(graph.target);
  for (const auto &m : plan.memory) {
    p.tiles.push_back({m.variables, m.vertexState, m.exchange, m.padding});
    if (m.total() > plan.bytesPerTile)
      p.outOfMemory = true;
  }
  for (const auto &v : graph.variables) {
    tp::Variable out;
    out.name = v.name;
    out.type = v.type.toString();
    out.shape.assign(v.shape.begin(), v.shape.end());
    out.bytes = v.numElements * v.type.size();
    std::set<unsigned> tiles;
    for (const auto &e : v.mapping.entries())
      tiles.insert(e.tile);
    out.tiles = static_cast<unsigned>(tiles.size());
    out.constant = v.isConstant;
    p.variables.push_back(std::move(out));
  }
  p.numVariables = p.variables.size();
  std::stable_sort(p.variables.begin(), p.variables.end(),
                   [](const auto &a, const auto &b) { return a.bytes > b.bytes; });
  if (p.variables.size() > kMaxVariables)
    p.variables.resize(kMaxVariables);
  for (const auto &cs : plan.computeSets) {
    tp::ComputeSet out;
    out.name = cs.name;
    out.vertices = cs.numVertices;
    out.tiles = static_cast<unsigned>(cs.tiles.size());
    std::map<std::uint32_t, std::uint64_t> perType; // by index into plan.vertexTypes
    for (const auto &tile : cs.tiles)
      for (const auto &call : tile.calls)
        ++perType[plan.vertexObjects[call.objectIndex].type];
    std::map<std::string, std::uint64_t> types;
    for (const auto &[type, count] : perType)
      types[plan.vertexTypes[type]->name] += count;
    for (const auto &[type, count] : types)
      out.vertexTypes.push_back({type, count});
    p.computeSets.push_back(std::move(out));
  }
  for (const auto &s : plan.steps) {
    tp::Step out;
    out.kind = stepKindName(s.kind);
    switch (s.kind) {
    case StepKind::Execute:
      out.computeSet = static_cast<int>(s.index);
      out.name = plan.computeSets[s.index].name;
      break;
    case StepKind::Copy:
      out.name = plan.copies[s.index].name;
      break;
    case StepKind::StreamIn:
    case StepKind::StreamOut:
      out.name = plan.streams[plan.streamCopies[s.index].stream].handle;
      break;
    case StepKind::Print:
      out.name = plan.prints[s.index].title;
      break;
    case StepKind::RemoteIn:
    case StepKind::RemoteOut:
      out.name = plan.remoteBuffers[plan.remoteCopies[s.index].buffer].handle;
      break;
    case StepKind::CrossReplica:
      out.name = plan.collectives[s.index].name;
      break;
    default:
      break;
    }
    p.steps.push_back(std::move(out));
  }
  p.programStart.assign(plan.programStart.begin(), plan.programStart.end());
  return p;
}

void priceGraph(tp::GraphProfile &profile, const compiler::CompiledGraph &plan,
                const std::vector<std::uint64_t> &vertexCycles) {
  const CostParameters params = parameters(profile.target);
  for (std::size_t i = 0; i < plan.computeSets.size(); ++i) {
    const ComputeSetCost c = estimateComputeSet(plan.computeSets[i], vertexCycles, params);
    auto &out = profile.computeSets[i];
    out.computeCycles = c.computeCycles;
    out.exchangeCycles = c.exchangeCycles;
    out.syncCycles = c.syncCycles;
    out.exchangeBytes = c.exchangeBytes;
    out.slowestTile = c.slowestTile;
    out.exchangeBufferBytes = c.exchangeBufferBytes;
  }
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const auto &s = plan.steps[i];
    auto &out = profile.steps[i];
    TransferCost t;
    switch (s.kind) {
    case StepKind::Execute:
      out.estimatedCycles = profile.computeSets[s.index].totalCycles();
      out.exchangeBytes = profile.computeSets[s.index].exchangeBytes;
      break;
    case StepKind::Copy:
      t = estimateCopy(plan.copies[s.index], params);
      out.estimatedCycles = t.cycles;
      out.exchangeBytes = t.bytes;
      break;
    case StepKind::StreamIn:
    case StepKind::StreamOut:
      t = estimateStreamCopy(plan.streamCopies[s.index].tensor, params);
      out.estimatedCycles = t.cycles;
      out.exchangeBytes = t.bytes;
      break;
    case StepKind::RemoteIn:
    case StepKind::RemoteOut:
      t = estimateRemoteCopy(plan.remoteCopies[s.index], params);
      out.estimatedCycles = t.cycles;
      out.exchangeBytes = t.bytes;
      break;
    case StepKind::CrossReplica:
      t = estimateCollective(plan.collectives[s.index], plan.replicationFactor, params);
      out.estimatedCycles = t.cycles;
      out.exchangeBytes = t.bytes;
      break;
    default:
      break;
    }
  }
}

} // namespace poplar::profile
