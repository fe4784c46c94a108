// Tensor::shapeToString and Tensor::getDebugStr: how a tensor describes itself.
#include <poplar/Tensor.hpp>

#include <sstream>

#include "core/GraphData.hpp"
#include "core/TensorData.hpp"

namespace poplar {

std::string Tensor::shapeToString() const {
  if (!valid())
    return "<invalid tensor>";
  std::string s = "{";
  const auto &shape = data().shape;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ',';
    s += std::to_string(shape[i]);
  }
  return s + "}";
}

std::string Tensor::getDebugStr() const {
  if (!valid())
    return "<invalid tensor>";
  const auto &d = data();
  std::ostringstream s;
  s << d.type.toString() << shapeToString() << " =";
  if (d.regions.empty())
    s << " (no elements)";
  core::forEachUnitRun(d.regions, [&](unsigned var, std::size_t b, std::size_t e) {
    std::string name;
    if (d.graph && var < d.graph->variables.size())
      name = d.graph->variables[var].name;
    if (name.empty())
      name = "var" + std::to_string(var);
    s << " '" << name << "'[" << b << ", " << e << ')';
  });
  return s.str();
}

} // namespace poplar
