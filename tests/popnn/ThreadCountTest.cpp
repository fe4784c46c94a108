// popnn results are bit-identical whatever the engine's host thread count: softmax rows, norm
// forward and backward (layer norm on [tokens][hidden] too), pooling and loss, each run with 1, 2
// and 5 host threads.
#include <popnn/BatchNorm.hpp>
#include <popnn/GroupNorm.hpp>
#include <popnn/LayerNorm.hpp>
#include <popnn/Loss.hpp>
#include <popnn/NonLinearity.hpp>
#include <popnn/Pooling.hpp>

#include "PopnnTestHarness.hpp"

using namespace popnn_test;

namespace {

std::map<std::string, std::vector<double>> runWithThreads(unsigned threads) {
  Harness h(Layout::MULTI_TILE);
  auto &g = h.graph();
  const std::vector<std::size_t> shape{4, 6, 5, 5};
  auto x = h.input(poplar::FLOAT, shape, randomValues(numElements(shape), 61), "x");
  auto dy = h.input(poplar::FLOAT, shape, randomValues(numElements(shape), 62), "dy");
  auto gamma = h.input(poplar::FLOAT, {6}, randomValues(6, 63, 0.5, 1.5), "gamma");
  auto beta = h.input(poplar::FLOAT, {6}, randomValues(6, 64), "beta");
  auto [m, s] = popnn::bn::batchNormStatistics(g, x, 1e-3f, h.prog(), false);
  auto [y, w] = popnn::bn::batchNormalise(g, x, gamma, beta, m, s, h.prog());
  h.output("bn", y);
  h.output("bnGrad", popnn::bn::batchNormGradients(g, w, dy, s, gamma, h.prog()));
  auto [gm, gs] = popnn::gn::groupNormStatistics(g, x, 1e-3f, h.prog(), 3, false, true);
  h.output("gn", popnn::gn::groupNormalise(g, x, gamma, beta, gm, gs, h.prog()).first);
  // Layer norm on [tokens][hidden] rows split between tiles (γ, β and their gradients by column).
  auto tokens = x.reshape({20, 30}), tokenGrads = dy.reshape({20, 30});
  auto lnGamma = h.input(poplar::FLOAT, {30}, randomValues(30, 65, 0.5, 1.5), "lnGamma");
  auto lnBeta = h.input(poplar::FLOAT, {30}, randomValues(30, 66), "lnBeta");
  auto [lm, ls] = popnn::ln::layerNormStatistics(g, tokens, 1e-3f, h.prog(), false);
  auto [ly, lw] = popnn::ln::layerNormalise(g, tokens, lnGamma, lnBeta, lm, ls, h.prog());
  h.output("ln", ly);
  h.output("lnGrad", popnn::ln::layerNormGradients(g, lw, tokenGrads, ls, lnGamma, h.prog()));
  h.output("lnGammaGrad", popnn::ln::layerNormParamGradients(g, lw, tokenGrads, h.prog()).first);
  auto rows = x.reshape({24, 25});
  h.output("softmax", popnn::nonLinearity(g, popnn::NonLinearityType::SOFTMAX, rows, h.prog()));
  const popnn::pooling::PoolParams p(popnn::PoolingType::AVG, {5, 5}, {3, 3}, {2, 2}, {1, 1},
                                     {1, 1}, 6, 4, poplar::FLOAT);
  h.output("pool", popnn::pooling::pool(g, p, x, h.prog()));
  poplar::OptionFlags opts;
  opts.set("target.hostThreads", std::to_string(threads));
  return h.run(1, opts);
}

TEST(ThreadCount, ResultsAreBitIdentical) {
  const auto one = runWithThreads(1);
  for (unsigned threads : {2u, 5u}) {
    const auto many = runWithThreads(threads);
    for (const auto &[name, values] : one)
      EXPECT_EQ(many.at(name), values) << name << " with " << threads << " host threads";
  }
}

} // namespace
