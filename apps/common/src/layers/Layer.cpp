#include <tessera/apps/layers/Layer.hpp>

#include <algorithm>

#include <popops/ElementWise.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include <tessera/apps/Errors.hpp>

namespace tessera::apps {

BuildContext::BuildContext(poplar::Graph &graph, poplar::Type dataType, std::uint64_t seed)
    : graph(graph), dataType(dataType) {
  seedTensor = graph.addConstant<unsigned>(
      poplar::UNSIGNED_INT, {2},
      {static_cast<unsigned>(seed & 0xffffffffu), static_cast<unsigned>(seed >> 32)}, "seed");
  graph.setTileMapping(seedTensor, 0);
}

Parameter &BuildContext::addParameter(const std::string &name, const poplar::Tensor &value,
                                      bool decay) {
  for (const auto &p : parameters_)
    if (p->name == name)
      throw app_error("two parameters are named '" + name + "'; layer names must be unique");
  parameters_.push_back(std::make_unique<Parameter>(Parameter{name, value, {}, decay}));
  return *parameters_.back();
}

void BuildContext::addState(const std::string &name, const poplar::Tensor &value,
                            bool perReplicaStatistic) {
  for (const auto &s : states_)
    if (s.name == name)
      throw app_error("two state tensors are named '" + name + "'");
  states_.push_back({name, value, perReplicaStatistic});
}

const poplar::Tensor &BuildContext::stepSeed() {
  if (!stepSeed_.valid()) {
    stepSeed_ = graph.addVariable(poplar::UNSIGNED_INT, {2}, "stepSeed");
    graph.setTileMapping(stepSeed_, 0);
    initialise.add(poplar::program::Copy(seedTensor, stepSeed_));
    addState("stepSeed", stepSeed_);
  }
  return stepSeed_;
}

void BuildContext::advanceStepSeed(poplar::program::Sequence &prog) {
  if (!stepSeed_.valid())
    return;
  // poprand mixes both words through Philox, so consecutive values give unrelated masks.
  namespace pe = popops::expr;
  popops::mapInPlace(graph, pe::_1 + pe::Const(1u), {stepSeed_.slice(1, 2)}, prog,
                     "stepSeed/advance");
}

void BuildContext::planForIpu() {
  plansForIpu_ = true;
  matMulOptions.set("planObjective", "ipuCycles");
}

poplar::Graph &BuildContext::placementGraph(std::size_t bytes) {
  // An IPU's plans spread each layer over all of its tiles (and its cost model has no host
  // threads to keep apart).
  if (plansForIpu())
    return graph;
  const unsigned tiles = graph.getTarget().getNumTiles();
  const std::size_t perTile = graph.getTarget().getBytesPerTile();
  unsigned window = static_cast<unsigned>(std::min<std::size_t>(
      tiles, std::max<std::size_t>(std::max(1u, std::min(kMinWindowTiles, tiles / 8)),
                                   (kFootprintFactor * bytes + perTile - 1) / perTile)));
  // Window starts step by the golden ratio of the IPU, so however many layers there are, their
  // first tiles (where single-unit plans put everything) spread evenly and rarely coincide.
  // The first tiles stay out of every window: whole-graph tensors (loss, labels, the
  // classifier's bias, ...) and small tensors of ops built outside windows map there.
  const unsigned reserved = window < tiles ? std::min(kMinWindowTiles, tiles - window) : 0;
  const unsigned starts = tiles - window - reserved + 1;
  nextWindowTile_ = (nextWindowTile_ + static_cast<unsigned>(0.6180339887 * tiles) + 1) % tiles;
  const unsigned lower = reserved + nextWindowTile_ % starts;
  return windows_.emplace_back(graph.createVirtualGraph(lower, lower + window));
}

poplar::Graph &BuildContext::graphHolding(const poplar::Tensor &t) {
  if (!windows_.empty()) {
    bool complete = false;
    windows_.back().getTileMapping(t, &complete);
    if (complete)
      return windows_.back();
  }
  return graph;
}

void mapActivationLinearly(poplar::Graph &graph, const poplar::Tensor &t) {
  const auto shape = t.shape();
  const unsigned grain = shape.empty() ? 1u : static_cast<unsigned>(shape.back());
  poputil::mapTensorLinearly(graph, t, grain, grain);
}

} // namespace tessera::apps
