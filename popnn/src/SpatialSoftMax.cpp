// popnn::spatialSoftMax2D composed from popops maps and reductions and popnn's softmax: the
// scaled fields, one joint softmax, then per field Σ p·y and Σ p·x against constant coordinate
// grids (each a fused map and one reduction).
#include <popnn/SpatialSoftMax.hpp>

#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>
#include <poputil/TileMapping.hpp>

#include "NnChecks.hpp"

namespace popnn {

namespace {
/// n evenly spaced points from -1 to 1 (one point: -1).
std::vector<float> linspace(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = n == 1 ? -1.0f : -1.0f + 2.0f * static_cast<float>(i) / static_cast<float>(n - 1);
  return v;
}
} // namespace

std::pair<poplar::Tensor, poplar::Tensor>
spatialSoftMax2D(poplar::Graph &graph, poplar::program::Sequence &prog,
                 const poplar::Tensor &fields, float initialTemperature, bool disableSoftmax,
                 const poplar::DebugContext &debugContext) {
  using namespace popops::expr;
  const std::string fn = "popnn::spatialSoftMax2D";
  detail::requireFloatType(fn, "fields", fields);
  if (fields.rank() != 3)
    detail::fail(fn, "fields", fields, "must have rank 3 ([fields][height][width])");
  const poplar::DebugContext dc(debugContext, "spatialSoftMax2D");
  const poplar::Type type = fields.elementType();
  const std::size_t F = fields.dim(0), H = fields.dim(1), W = fields.dim(2);

  poplar::Tensor temperature = graph.addVariable(type, {}, {dc, "temperature"});
  graph.setTileMapping(temperature, 0);
  graph.setInitialValue(temperature, initialTemperature);

  auto everywhere = [&](const poplar::Tensor &scalar) {
    return scalar.reshape({1, 1, 1})
        .broadcast(static_cast<unsigned>(F), 0)
        .broadcast(static_cast<unsigned>(H), 1)
        .broadcast(static_cast<unsigned>(W), 2);
  };
  poplar::Tensor scaled =
      popops::map(graph, _1 / _2, {fields, everywhere(temperature)}, prog, {dc, "scaled"});
  if (!disableSoftmax)
    nonLinearityInPlace(graph, NonLinearityType::SOFTMAX, scaled.flatten(), prog, {dc, "softmax"});

  // Coordinate grids: y varies down the rows, x along the columns.
  const auto ys = linspace(H), xs = linspace(W);
  std::vector<float> yGrid(H * W), xGrid(H * W);
  for (std::size_t h = 0; h < H; ++h)
    for (std::size_t w = 0; w < W; ++w) {
      yGrid[h * W + w] = ys[h];
      xGrid[h * W + w] = xs[w];
    }
  auto grid = [&](const std::vector<float> &values, const char *name) {
    poplar::Tensor t = graph.addConstant<float>(type, {1, H, W}, values, {dc, name});
    poputil::mapTensorLinearly(graph, t);
    return t.broadcast(static_cast<unsigned>(F), 0);
  };
  auto expected = [&](const poplar::Tensor &g, const char *name) {
    const poplar::Tensor weighted = popops::map(graph, _1 * _2, {scaled, g}, prog, {dc, name});
    return popops::reduce(graph, weighted, {1, 2}, popops::Operation::ADD, prog, {dc, name})
        .reshape({F, 1});
  };
  poplar::Tensor y = expected(grid(yGrid, "yGrid"), "expectedY");
  poplar::Tensor x = expected(grid(xGrid, "expectedX"), "expectedX");
  return {poplar::concat(y, x, 1), temperature};
}

} // namespace popnn
