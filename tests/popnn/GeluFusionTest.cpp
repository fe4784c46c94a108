// popnn's GELU and its input gradient are written so popops' map compiler runs each as one fused
// kernel (popops/src/MapExprFusion.cpp): should either expression drift from that form, the
// results stay right (NonLinearityTest) but every GELU pays an operation per node again.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <popnn/NonLinearity.hpp>
#include <popnn/codelets.hpp>
#include <popops/ElementWise.hpp>

using namespace poplar;
using namespace poplar::program;

namespace {

/// The estimated cycles of the one vertex that `build` adds over two [1024] tensors on one tile.
std::uint64_t cyclesOf(const std::function<void(Graph &, Tensor, Tensor, Sequence &)> &build) {
  IPUModel model;
  model.tilesPerIPU = 1;
  Device device = model.createDevice();
  Graph graph(device.getTarget());
  popnn::addCodelets(graph);
  Tensor x = graph.addVariable(FLOAT, {1024}, "x");
  Tensor dy = graph.addVariable(FLOAT, {1024}, "dy");
  graph.setTileMapping(x, 0);
  graph.setTileMapping(dy, 0);
  Sequence prog;
  build(graph, x, dy, prog);
  Engine engine(graph, prog);
  engine.load(device);
  const auto estimates = engine.getVertexCycleEstimates();
  EXPECT_EQ(estimates.size(), 1u);
  return estimates.empty() ? 0 : estimates.front().effective();
}

} // namespace

TEST(GeluFusion, NonLinearityGeluAndItsGradientCostOneOperationEach) {
  namespace pe = popops::expr;
  using popnn::NonLinearityType;
  const auto oneOp = cyclesOf(
      [](Graph &g, Tensor x, Tensor, Sequence &p) { popops::map(g, pe::Tanh(pe::_1), {x}, p); });
  const auto oneBinaryOp = cyclesOf([](Graph &g, Tensor x, Tensor dy, Sequence &p) {
    popops::map(g, pe::_1 * pe::_2, {x, dy}, p);
  });
  EXPECT_EQ(cyclesOf([](Graph &g, Tensor x, Tensor, Sequence &p) {
              popnn::nonLinearity(g, NonLinearityType::GELU, x, p);
            }),
            oneOp);
  EXPECT_EQ(cyclesOf([](Graph &g, Tensor x, Tensor dy, Sequence &p) {
              popnn::nonLinearityInputGradient(g, NonLinearityType::GELU, x, dy, p);
            }),
            oneBinaryOp);
}
