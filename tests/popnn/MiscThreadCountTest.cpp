// Bit-identical results for 1 and 2 host threads: max pooling over windows of padding alone (2-D
// plane vertices and 3-D maps), instance norm forward and backward, norms of empty activations,
// spatial softmax and the compute-set non-linearities.
#include <popnn/InstanceNorm.hpp>
#include <popnn/NonLinearity.hpp>
#include <popnn/Pooling.hpp>
#include <popnn/SpatialSoftMax.hpp>

#include "PopnnTestHarness.hpp"

using namespace popnn_test;

namespace {

std::map<std::string, std::vector<double>> runWithThreads(unsigned threads) {
  Harness h(Layout::MULTI_TILE);
  auto &g = h.graph();
  using popnn::PoolingType;
  using popnn::pooling::PoolParams;
  auto x2 = h.input(poplar::FLOAT, {2, 3, 5, 6}, randomValues(180, 601), "x2");
  const PoolParams p2(PoolingType::MAX, {5, 6}, {2, 2}, {2, 2}, {2, 1}, {1, 1}, 3, 2,
                      poplar::FLOAT);
  auto y2 = popnn::pooling::pool(g, p2, x2, h.prog());
  h.output("pool2d", y2);
  auto dy2 = h.input(poplar::FLOAT, y2.shape(), randomValues(y2.numElements(), 602), "dy2");
  h.output("pool2dGrad",
           popnn::pooling::poolInputGradient(g, p2, x2, y2, dy2, true, h.prog()));
  auto x3 = h.input(poplar::FLOAT, {1, 2, 3, 3, 4}, randomValues(72, 603), "x3");
  const PoolParams p3(PoolingType::MAX, {3, 3, 4}, {2, 2, 2}, {2, 1, 2}, {2, 0, 1}, {0, 0, 0},
                      2, 1, poplar::FLOAT);
  h.output("pool3d", popnn::pooling::pool(g, p3, x3, h.prog()));

  auto acts = h.input(poplar::FLOAT, {3, 4, 5, 5}, randomValues(300, 604), "acts");
  auto grads = h.input(poplar::FLOAT, {3, 4, 5, 5}, randomValues(300, 605), "grads");
  auto gamma = h.input(poplar::FLOAT, {4}, randomValues(4, 606, 0.5, 1.5), "gamma");
  auto beta = h.input(poplar::FLOAT, {4}, randomValues(4, 607), "beta");
  auto [m, s] = popnn::in::instanceNormStatistics(g, acts, 1e-3f, h.prog(), false);
  auto [y, w] = popnn::in::instanceNormalise(g, acts, gamma, beta, m, s, h.prog());
  h.output("in", y);
  h.output("inGrad", popnn::in::instanceNormGradients(g, w, grads, s, gamma, h.prog()));

  h.output("ssm", popnn::spatialSoftMax2D(g, h.prog(), acts.reshape({12, 5, 5}), 0.7f).first);

  auto t = h.input(poplar::FLOAT, {7, 9}, randomValues(63, 608), "t");
  poplar::ComputeSet cs = g.addComputeSet("gelu");
  popnn::nonLinearityInPlace(g, popnn::NonLinearityType::GELU_ERF, t, cs);
  h.prog().add(poplar::program::Execute(cs));
  h.output("gelu", t);
  poplar::OptionFlags opts;
  opts.set("target.hostThreads", std::to_string(threads));
  return h.run(1, opts);
}

TEST(MiscThreadCount, ResultsAreBitIdenticalForOneAndTwoHostThreads) {
  const auto one = runWithThreads(1), two = runWithThreads(2);
  for (const auto &[name, values] : one)
    EXPECT_EQ(two.at(name), values) << name;
}

} // namespace
