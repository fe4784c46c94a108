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
  for (const auto &r : d.regions) {
    std::string name;
    if (d.graph && r.var < d.graph->variables.size())
      name = d.graph->variables[r.var].name;
    if (name.empty())
      name = "var" + std::to_string(r.var);
    s << " '" << name << "'[" << r.begin << ", " << r.end << ')';
  }
  return s.str();
}

} // namespace poplar
