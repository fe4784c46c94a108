#include <poputil/Describe.hpp>

#include "core/GraphData.hpp"

namespace poputil {

std::string shapeString(poplar::ArrayRef<std::size_t> shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i)
      out += ',';
    out += std::to_string(shape[i]);
  }
  out += ']';
  return out;
}

std::string describe(const poplar::Tensor &t) { return poplar::core::describe(t); }

} // namespace poputil
