// poplin/Norms.hpp (the per-channel normalisation blocks) against reference/Norms.hpp's batch-norm
// shape: statistics (biased, unbiased, stable), whitening, the affine step and the gradients.
#include <gtest/gtest.h>

#include <poplin/Norms.hpp>
#include <poputil/exceptions.hpp>
#include <reference/Norms.hpp>

#include "LinalgTestSupport.hpp"

using namespace poplin::testing;

namespace {

constexpr std::size_t B = 3, C = 4, H = 5, W = 2, F = H * W;
constexpr float eps = 1e-3f;

struct NormsRun {
  std::vector<double> x, gamma, beta, grads;
  std::map<std::string, std::vector<double>> out;
};

NormsRun runNorms(poplar::Type type, bool unbiased, bool stable, Mapping mapping = Mapping::Linear,
                  unsigned hostThreads = 0) {
  LinalgHarness h;
  NormsRun r;
  r.x = reference::roundTo(type, reference::randomValues(B * C * F, 31, -2.0, 3.0));
  r.gamma = reference::roundTo(type, reference::randomValues(C, 32, 0.5, 1.5));
  r.beta = reference::roundTo(type, reference::randomValues(C, 33));
  r.grads = reference::roundTo(type, reference::randomValues(B * C * F, 34));
  auto acts = h.input("x", type, {B, C, H, W}, r.x, mapping);
  auto grads = h.input("g", type, {B, C, H, W}, r.grads, mapping);
  auto [gamma, beta] = poplin::createNormParams(h.graph(), acts, "norm");
  h.write("gamma", gamma, r.gamma);
  h.write("beta", beta, r.beta);
  auto &g = h.graph();
  auto &prog = h.prog();
  auto [mean, iStdDev] = poplin::normStatistics(g, acts, eps, prog, unbiased, stable);
  auto whitened = poplin::normWhiten(g, acts, mean, iStdDev, prog);
  auto y = poplin::normalise(g, whitened, gamma, beta, prog);
  auto [dGamma, dBeta] = poplin::normParamGradients(g, whitened, grads, prog);
  auto dx = poplin::normStatisticsGradients(
      g, whitened, poplin::normGradients(g, grads, gamma, prog), iStdDev, prog);
  for (const auto &[name, t] : std::map<std::string, poplar::Tensor>{{"mean", mean},
                                                                     {"iStdDev", iStdDev},
                                                                     {"whitened", whitened},
                                                                     {"y", y},
                                                                     {"dGamma", dGamma},
                                                                     {"dBeta", dBeta},
                                                                     {"dx", dx}})
    h.output(name, t);
  r.out = h.run(hostThreads);
  return r;
}

void expectMatchesReference(const NormsRun &r, bool unbiased, double tol) {
  const auto shape = reference::NormShape::batchNorm(B, C, F);
  const auto st = reference::normStatistics(shape, r.x, eps, unbiased);
  const auto [y, w] = reference::normalise(shape, r.x, st, r.gamma, r.beta);
  const auto [dGamma, dBeta] = reference::normParamGradients(shape, w, r.grads);
  const auto dx = reference::normGradients(shape, w, r.grads, st.invStdDev, r.gamma);
  EXPECT_LT(reference::relativeError(r.out.at("mean"), st.mean), tol);
  EXPECT_LT(reference::relativeError(r.out.at("iStdDev"), st.invStdDev), tol);
  EXPECT_LT(reference::relativeError(r.out.at("whitened"), w), tol);
  EXPECT_LT(reference::relativeError(r.out.at("y"), y), tol);
  EXPECT_LT(reference::relativeError(r.out.at("dGamma"), dGamma), tol);
  EXPECT_LT(reference::relativeError(r.out.at("dBeta"), dBeta), tol);
  EXPECT_LT(reference::relativeError(r.out.at("dx"), dx), tol);
}

TEST(PoplinNorms, EveryStepMatchesTheReference) {
  for (bool unbiased : {false, true})
    for (bool stable : {false, true}) {
      SCOPED_TRACE("unbiased " + std::to_string(unbiased) + " stable " + std::to_string(stable));
      expectMatchesReference(runNorms(poplar::FLOAT, unbiased, stable), unbiased, 1e-5);
    }
}

TEST(PoplinNorms, HalfActivationsAreCloseToTheReference) {
  expectMatchesReference(runNorms(poplar::HALF, false, true), false, 1e-2);
}

TEST(PoplinNorms, OneTileAndSpreadGiveTheSameResults) {
  const auto spread = runNorms(poplar::FLOAT, true, false);
  const auto oneTile = runNorms(poplar::FLOAT, true, false, Mapping::OneTile);
  EXPECT_EQ(spread.out, oneTile.out);
}

TEST(PoplinNorms, OneAndTwoHostThreadsGiveIdenticalBits) {
  const auto one = runNorms(poplar::FLOAT, false, false, Mapping::Linear, 1);
  const auto two = runNorms(poplar::FLOAT, false, false, Mapping::Linear, 2);
  EXPECT_EQ(one.out, two.out);
}

TEST(PoplinNorms, BadShapesAndTypesThrowNamingTheTensor) {
  LinalgHarness h;
  auto &g = h.graph();
  auto var = [&](std::vector<std::size_t> shape, poplar::Type t = poplar::FLOAT) {
    auto v = g.addVariable(t, shape, "v");
    g.setTileMapping(v, 0);
    return v;
  };
  auto expectError = [](auto f, const std::string &culprit) {
    try {
      f();
      FAIL() << "expected poplibs_error naming " << culprit;
    } catch (const poputil::poplibs_error &e) {
      EXPECT_NE(std::string(e.what()).find(culprit), std::string::npos) << e.what();
    }
  };
  auto acts = var({2, 3, 4});
  auto &p = h.prog();
  expectError([&] { poplin::normStatistics(g, var({6}), eps, p, false); }, "actsUngrouped");
  expectError(
      [&] {
        poplin::normStatistics(g, var({2, 3}, poplar::INT), eps, p, false);
      },
      "actsUngrouped has type int");
  expectError(
      [&] {
        poplin::normStatistics(g, var({1, 3}), eps, p, true);
      },
      "unbiased variance needs at least 2");
  expectError([&] { poplin::normWhiten(g, acts, var({4}), var({3}), p); },
              "mean must have shape [3]");
  expectError([&] { poplin::normalise(g, acts, var({3}), var({2}), p); }, "beta must have shape");
  expectError([&] { poplin::normGradients(g, acts, var({3, 1}), p); }, "gamma must have shape");
  expectError([&] { poplin::normParamGradients(g, acts, var({2, 3, 5}), p); }, "gradsIn has shape");
  expectError([&] { poplin::normStatisticsGradients(g, acts, acts, var({2}), p); },
              "invStdDev must have shape");
  expectError([&] { poplin::createNormGamma(g, var({5})); }, "acts");
}

} // namespace
