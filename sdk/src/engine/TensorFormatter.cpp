#include "engine/TensorFormatter.hpp"

#include <sstream>

#include "core/ElementConversion.hpp"

namespace poplar::engine {

namespace {
void formatLevel(std::ostringstream &os, Type type, const std::vector<std::size_t> &shape,
                 std::size_t dim, const unsigned char *data, std::size_t &index) {
  if (dim == shape.size()) {
    const double v = core::elementAsDouble(type, data, index++);
    if (type == BOOL)
      os << (v != 0 ? "true" : "false");
    else
      os << v;
    return;
  }
  os << '[';
  for (std::size_t i = 0; i < shape[dim]; ++i) {
    if (i)
      os << ", ";
    formatLevel(os, type, shape, dim + 1, data, index);
  }
  os << ']';
}
} // namespace

std::string formatTensor(const std::string &title, Type type, const std::vector<std::size_t> &shape,
                         const unsigned char *data) {
  std::ostringstream os;
  os.precision(9);
  if (!title.empty())
    os << title << ": ";
  std::size_t index = 0;
  formatLevel(os, type, shape, 0, data, index);
  return os.str();
}

} // namespace poplar::engine
