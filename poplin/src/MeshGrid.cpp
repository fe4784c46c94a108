#include <poplin/MeshGrid.hpp>

#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

namespace poplin {

poplar::Tensor linspace(poplar::Graph &graph, const poplar::Type &type, float left, float right,
                        std::size_t count, const poplar::DebugContext &debugContext) {
  if (type != poplar::FLOAT && type != poplar::HALF)
    throw poputil::poplibs_error("poplin::linspace: type is " + type.toString() +
                                 "; expected float or half");
  std::vector<float> values(count);
  for (std::size_t i = 0; i < count; ++i)
    values[i] = count == 1
                    ? left
                    : static_cast<float>(double(left) + double(i) * (double(right) - double(left)) /
                                                            double(count - 1));
  if (count > 1)
    values.back() = right; // exactly the end point, whatever the rounding of the step
  poplar::Tensor t = graph.addConstant(
      type, {count}, poplar::ArrayRef<float>(values),
      debugContext.getPathName().empty() ? std::string("linspace") : debugContext.getPathName());
  poputil::mapTensorLinearly(graph, t);
  return t;
}

std::vector<poplar::Tensor> meshgrid2d(poplar::Graph &, poplar::Tensor x, poplar::Tensor y) {
  if (x.rank() != 1)
    throw poputil::poplibs_error("poplin::meshgrid2d: x must be a vector (rank 1) but has rank " +
                                 std::to_string(x.rank()));
  if (y.rank() != 1)
    throw poputil::poplibs_error("poplin::meshgrid2d: y must be a vector (rank 1) but has rank " +
                                 std::to_string(y.rank()));
  if (x.elementType() != y.elementType())
    throw poputil::poplibs_error("poplin::meshgrid2d: x has type " + x.elementType().toString() +
                                 " but y has type " + y.elementType().toString() +
                                 "; they must match");
  const std::size_t nx = x.numElements(), ny = y.numElements();
  return {x.reshape({1, nx}).broadcast(unsigned(ny), 0),
          y.reshape({ny, 1}).broadcast(unsigned(nx), 1)};
}

} // namespace poplin
