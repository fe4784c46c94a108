#include <tessera/apps/layers/Layer.hpp>

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

void BuildContext::addState(const std::string &name, const poplar::Tensor &value) {
  for (const auto &s : states_)
    if (s.name == name)
      throw app_error("two state tensors are named '" + name + "'");
  states_.push_back({name, value});
}

void mapActivationLinearly(poplar::Graph &graph, const poplar::Tensor &t) {
  const auto shape = t.shape();
  const unsigned grain = shape.empty() ? 1u : static_cast<unsigned>(shape.back());
  poputil::mapTensorLinearly(graph, t, grain, grain);
}

} // namespace tessera::apps
