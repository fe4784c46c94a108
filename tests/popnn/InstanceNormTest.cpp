// popnn::in (instance norm), popnn/Norms.hpp (parameter creation, flop counts), the
// `*NormParamUpdate(…, const Tensor &scale, …)` overloads and norms of empty activations, against
// reference/Norms.hpp. FLOAT and HALF, one tile and 16.
#include <cmath>

#include <popnn/BatchNorm.hpp>
#include <popnn/GroupNorm.hpp>
#include <popnn/InstanceNorm.hpp>
#include <popnn/LayerNorm.hpp>
#include <popnn/Norms.hpp>
#include <poputil/exceptions.hpp>
#include <reference/Norms.hpp>

#include "PopnnTestHarness.hpp"

using namespace popnn_test;

namespace {

constexpr float kEps = 1e-3f;

class InstanceNorm : public testing::TestWithParam<std::tuple<Layout, bool>> {};

std::string instanceName(const testing::TestParamInfo<std::tuple<Layout, bool>> &info) {
  return std::string(layoutName(std::get<0>(info.param))) +
         (std::get<1>(info.param) ? "_half" : "_float");
}

TEST_P(InstanceNorm, ForwardAndGradientsMatchReference) {
  const auto [layout, half] = GetParam();
  const poplar::Type type = half ? poplar::HALF : poplar::FLOAT;
  const std::size_t B = 2, C = 3, H = 4, W = 5;
  const auto shape = reference::NormShape::instanceNorm(B, C, H * W);
  const auto x = roundTo(type, randomValues(B * C * H * W, 81));
  const auto dy = roundTo(type, randomValues(x.size(), 82));
  const auto gamma = roundTo(type, randomValues(C, 83, 0.5, 1.5));
  const auto beta = roundTo(type, randomValues(C, 84));
  Harness h(layout);
  auto &g = h.graph();
  auto acts = h.input(type, {B, C, H, W}, x, "x");
  auto grads = h.input(type, {B, C, H, W}, dy, "dy");
  auto gammaT = h.input(type, {C}, gamma, "gamma");
  auto betaT = h.input(type, {C}, beta, "beta");
  auto [mean, invStd] = popnn::in::instanceNormStatistics(g, acts, kEps, h.prog(), false);
  ASSERT_EQ(mean.shape(), (std::vector<std::size_t>{B * C}));
  auto [y, w] = popnn::in::instanceNormalise(g, acts, gammaT, betaT, mean, invStd, h.prog());
  auto [dGamma, dBeta] = popnn::in::instanceNormParamGradients(g, w, grads, h.prog());
  h.output("mean", mean);
  h.output("invStd", invStd);
  h.output("y", y);
  h.output("whiten", popnn::in::instanceNormWhiten(g, acts, mean, invStd, h.prog()));
  h.output("dx", popnn::in::instanceNormGradients(g, w, grads, invStd, gammaT, h.prog()));
  h.output("dxFromActs",
           popnn::in::instanceNormGradients(g, acts, grads, mean, invStd, gammaT, h.prog()));
  h.output("dGamma", dGamma);
  h.output("dBeta", dBeta);
  auto r = h.run();

  const auto st = reference::normStatistics(shape, x, kEps, false);
  const auto [yRef, wRef] = reference::normalise(shape, x, st, gamma, beta);
  const auto [dGammaRef, dBetaRef] = reference::normParamGradients(shape, wRef, dy);
  const auto dxRef = reference::normGradients(shape, wRef, dy, st.invStdDev, gamma);
  const double tol = half ? 3e-2 : 1e-4;
  expectClose(r["mean"], st.mean, tol, tol, "mean");
  expectClose(r["invStd"], st.invStdDev, tol, tol, "invStdDev");
  expectClose(r["y"], yRef, tol, tol, "normalised");
  expectClose(r["whiten"], wRef, tol, tol, "whitened");
  expectClose(r["dx"], dxRef, half ? 5e-2 : 1e-3, half ? 5e-2 : 1e-3, "input gradient");
  expectClose(r["dxFromActs"], dxRef, half ? 5e-2 : 1e-3, half ? 5e-2 : 1e-3,
              "input gradient from acts");
  expectClose(r["dGamma"], dGammaRef, half ? 0.2 : 1e-3, half ? 2e-2 : 1e-3, "gammaDelta");
  expectClose(r["dBeta"], dBetaRef, half ? 0.2 : 1e-3, half ? 2e-2 : 1e-3, "betaDelta");
}

INSTANTIATE_TEST_SUITE_P(Layouts, InstanceNorm,
                         testing::Combine(testing::Values(Layout::SINGLE_TILE, Layout::MULTI_TILE),
                                          testing::Bool()),
                         instanceName);

TEST(InstanceNorm, FlopsAreThoseOfANormWithOneStatisticPerChannel) {
  EXPECT_EQ(popnn::in::getFwdFlops(4, 10, true), popnn::getNormFwdFlops(4, 40, true));
  EXPECT_EQ(popnn::in::getFwdFlops(4, 10, false), 80u);
  EXPECT_EQ(popnn::in::getBwdFlops(4, 10), popnn::getNormBwdFlops(4, 40));
  EXPECT_EQ(popnn::in::getWuFlops(4, 10), popnn::getNormWuFlops(4, 40));
}

TEST(NormFlops, CountEveryPass) {
  EXPECT_EQ(popnn::getNormFwdFlops(3, 100), 6u * 100 + 5 * 3);
  EXPECT_EQ(popnn::getNormFwdFlops(3, 100, false), 200u);
  EXPECT_EQ(popnn::getNormBwdFlops(3, 100), 8u * 100 + 2 * 3);
  EXPECT_EQ(popnn::getNormWuFlops(3, 100), 3u * 100 + 4 * 3);
}

TEST(NormParams, CreatedPerChannelInTheRequestedType) {
  Harness h(Layout::MULTI_TILE);
  auto acts = h.graph().addVariable(poplar::HALF, {2, 7, 3, 3}, "acts");
  auto gamma = popnn::createNormGamma(h.graph(), acts);
  auto beta = popnn::createNormBeta(h.graph(), acts, poplar::FLOAT);
  auto [g2, b2] = popnn::createNormParams(h.graph(), acts);
  EXPECT_EQ(gamma.shape(), (std::vector<std::size_t>{7}));
  EXPECT_EQ(gamma.elementType(), poplar::HALF);
  EXPECT_EQ(beta.elementType(), poplar::FLOAT);
  EXPECT_EQ(g2.shape(), (std::vector<std::size_t>{7}));
  EXPECT_EQ(b2.elementType(), poplar::HALF);
  // Every element is mapped to a tile.
  std::size_t mapped = 0;
  for (const auto &tile : h.graph().getTileMapping(beta))
    for (const auto &iv : tile)
      mapped += iv.size();
  EXPECT_EQ(mapped, 7u);
}

TEST(NormParams, RankOneActsAreRefusedNamingActs) {
  Harness h(Layout::SINGLE_TILE);
  auto acts = h.graph().addVariable(poplar::FLOAT, {7}, "acts");
  try {
    popnn::createNormGamma(h.graph(), acts);
    FAIL() << "expected poplibs_error";
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find("'acts'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(popnn::createNormBeta(h.graph(), h.graph().addVariable(poplar::FLOAT, {2, 3}, "a"),
                                     poplar::INT),
               poputil::poplibs_error);
}

TEST(NormParamUpdate, TensorScaleMatchesReferenceForEveryNorm) {
  for (bool half : {false, true}) {
    const poplar::Type type = half ? poplar::HALF : poplar::FLOAT;
    const std::size_t C = 5;
    const auto gamma = roundTo(type, randomValues(C, 91)), beta = roundTo(type, randomValues(C, 92));
    const auto dGamma = roundTo(type, randomValues(C, 93)),
               dBeta = roundTo(type, randomValues(C, 94));
    const double scale = -0.25;
    Harness h(Layout::MULTI_TILE);
    auto &g = h.graph();
    auto scaleT = h.input(poplar::FLOAT, {}, {scale}, "scale");
    auto dG = h.input(type, {C}, dGamma, "dGamma");
    auto dB = h.input(type, {C}, dBeta, "dBeta");
    const char *names[] = {"bn", "gn", "ln", "in"};
    for (int n = 0; n < 4; ++n) {
      const std::string name = names[n];
      auto gT = h.input(type, {C}, gamma, name + "Gamma");
      auto bT = h.input(type, {C}, beta, name + "Beta");
      if (n == 0)
        popnn::bn::batchNormParamUpdate(g, dG, dB, scaleT, gT, bT, h.prog());
      else if (n == 1)
        popnn::gn::groupNormParamUpdate(g, dG, dB, scaleT, gT, bT, h.prog());
      else if (n == 2)
        popnn::ln::layerNormParamUpdate(g, dG, dB, scaleT, gT, bT, h.prog());
      else
        popnn::in::instanceNormParamUpdate(g, dG, dB, scaleT, gT, bT, h.prog());
      h.output(name + "Gamma", gT);
      h.output(name + "Beta", bT);
    }
    auto r = h.run();
    std::vector<double> gammaRef(C), betaRef(C);
    for (std::size_t c = 0; c < C; ++c) {
      gammaRef[c] = gamma[c] + scale * dGamma[c];
      betaRef[c] = beta[c] + scale * dBeta[c];
    }
    const double tol = half ? 2e-3 : 1e-6;
    for (const char *name : names) {
      expectClose(r[std::string(name) + "Gamma"], gammaRef, tol, tol, name);
      expectClose(r[std::string(name) + "Beta"], betaRef, tol, tol, name);
    }
  }
}

TEST(NormParamUpdate, ScaleOfMoreThanOneElementIsRefusedNamingScale) {
  Harness h(Layout::SINGLE_TILE);
  auto &g = h.graph();
  auto t = [&](std::vector<std::size_t> s) {
    auto v = g.addVariable(poplar::FLOAT, s, "t");
    g.setTileMapping(v, 0);
    return v;
  };
  auto gamma = t({4}), beta = t({4});
  try {
    popnn::bn::batchNormParamUpdate(g, t({4}), t({4}), t({2}), gamma, beta, h.prog());
    FAIL() << "expected poplibs_error";
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find("'scale'"), std::string::npos) << e.what();
  }
}

// ---- Empty activations -----------------------------------------------------------------------

/// Runs statistics, normalise and every gradient of each norm on [B][C][F] acts with a zero
/// dimension: nothing throws, results have the usual shapes, statistics over no elements are
/// mean 0 and invStdDev 1 / sqrt(eps), parameter gradients are 0.
void checkEmpty(std::size_t B, std::size_t C, std::size_t F, bool half) {
  const poplar::Type type = half ? poplar::HALF : poplar::FLOAT;
  Harness h(Layout::MULTI_TILE);
  auto &g = h.graph();
  auto acts = g.addVariable(type, {B, C, F}, "acts");
  auto grads = g.addVariable(type, {B, C, F}, "grads");
  poputil::mapTensorLinearly(g, acts);
  poputil::mapTensorLinearly(g, grads);
  auto gamma = h.input(type, {C}, std::vector<double>(C, 2.0), "gamma");
  auto beta = h.input(type, {C}, std::vector<double>(C, 1.0), "beta");
  struct Result {
    std::string name;
    std::size_t numStats;
  };
  std::vector<Result> results;
  auto check = [&](const std::string &name, std::pair<poplar::Tensor, poplar::Tensor> stats,
                   auto normalise, auto gradients, auto paramGradients, std::size_t numStats) {
    ASSERT_EQ(stats.first.shape(), (std::vector<std::size_t>{numStats})) << name;
    ASSERT_EQ(stats.second.shape(), (std::vector<std::size_t>{numStats})) << name;
    auto [y, w] = normalise(stats.first, stats.second);
    EXPECT_EQ(y.shape(), acts.shape()) << name;
    EXPECT_EQ(w.shape(), acts.shape()) << name;
    poplar::Tensor dx = gradients(w, stats.second);
    EXPECT_EQ(dx.shape(), acts.shape()) << name;
    auto [dGamma, dBeta] = paramGradients(w);
    EXPECT_EQ(dGamma.shape(), (std::vector<std::size_t>{C})) << name;
    if (numStats) {
      h.output(name + "Mean", stats.first);
      h.output(name + "InvStd", stats.second);
    }
    if (C) {
      h.output(name + "DGamma", dGamma);
      h.output(name + "DBeta", dBeta);
    }
    results.push_back({name, numStats});
  };
  auto &prog = h.prog();
  check(
      "bn", popnn::bn::batchNormStatistics(g, acts, kEps, prog, false),
      [&](auto m, auto s) { return popnn::bn::batchNormalise(g, acts, gamma, beta, m, s, prog); },
      [&](auto w, auto s) { return popnn::bn::batchNormGradients(g, w, grads, s, gamma, prog); },
      [&](auto w) { return popnn::bn::batchNormParamGradients(g, w, grads, prog); }, C);
  EXPECT_EQ(popnn::bn::batchNormalise(g, acts, gamma, beta, prog).shape(), acts.shape());
  check(
      "gn", popnn::gn::groupNormStatistics(g, acts, kEps, prog, 1, false),
      [&](auto m, auto s) { return popnn::gn::groupNormalise(g, acts, gamma, beta, m, s, prog); },
      [&](auto w, auto s) { return popnn::gn::groupNormGradients(g, w, grads, s, gamma, prog); },
      [&](auto w) { return popnn::gn::groupNormParamGradients(g, w, grads, prog); }, B);
  check(
      "ln", popnn::ln::layerNormStatistics(g, acts, kEps, prog, true),
      [&](auto m, auto s) { return popnn::ln::layerNormalise(g, acts, gamma, beta, m, s, prog); },
      [&](auto w, auto s) { return popnn::ln::layerNormGradients(g, w, grads, s, gamma, prog); },
      [&](auto w) { return popnn::ln::layerNormParamGradients(g, w, grads, prog); }, B);
  if (C) {
    check(
        "in", popnn::in::instanceNormStatistics(g, acts, kEps, prog, false),
        [&](auto m, auto s) {
          return popnn::in::instanceNormalise(g, acts, gamma, beta, m, s, prog);
        },
        [&](auto w, auto s) {
          return popnn::in::instanceNormGradients(g, w, grads, s, gamma, prog);
        },
        [&](auto w) { return popnn::in::instanceNormParamGradients(g, w, grads, prog); }, B * C);
  }
  auto r = h.run();
  const double invStd = 1.0 / std::sqrt(static_cast<double>(kEps));
  for (const auto &res : results) {
    if (res.numStats) {
      expectClose(r[res.name + "Mean"], std::vector<double>(res.numStats, 0.0), 0, 0, res.name);
      expectClose(r[res.name + "InvStd"], std::vector<double>(res.numStats, invStd), 1e-3, 1e-3,
                  res.name);
    }
    if (C) {
      expectClose(r[res.name + "DGamma"], std::vector<double>(C, 0.0), 0, 0, res.name);
      expectClose(r[res.name + "DBeta"], std::vector<double>(C, 0.0), 0, 0, res.name);
    }
  }
}

TEST(NormEmpty, NoSamplesGiveEmptyResultsWithoutThrowing) {
  checkEmpty(0, 4, 3, false);
  checkEmpty(0, 4, 3, true);
}

TEST(NormEmpty, EmptyFieldGivesStatisticsOverNothing) {
  checkEmpty(2, 4, 0, false);
  checkEmpty(2, 4, 0, true);
}

TEST(NormEmpty, NoChannelsGiveEmptyResultsWithoutThrowing) { checkEmpty(2, 0, 3, false); }

} // namespace
