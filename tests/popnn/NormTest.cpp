// popnn::bn, gn and ln against a double reference: statistics (one-pass and stable, biased and
// unbiased), normalisation, the inference form, input and parameter gradients against central
// finite differences of the whole layer (statistics included), on one tile and 16.
// Tolerances: statistics / forward 1e-4 abs + 1e-4 rel; gradients 2e-3 abs + 2e-3 rel (float
// on-device sums against a double FD with step 1e-4).
#include <cmath>
#include <functional>

#include <popnn/BatchNorm.hpp>
#include <popnn/GroupNorm.hpp>
#include <popnn/LayerNorm.hpp>

#include "PopnnTestHarness.hpp"

using namespace popnn_test;

namespace {

constexpr float kEps = 1e-3f;

/// Which statistic element of a [B][C][F] tensor covers (b, c).
using StatIndex = std::function<std::size_t(std::size_t b, std::size_t c)>;

struct NormRef {
  std::vector<double> y, mean, invStd;
};

NormRef normRef(const std::vector<double> &x, std::size_t B, std::size_t C, std::size_t F,
                std::size_t numStats, const StatIndex &stat, const std::vector<double> &gamma,
                const std::vector<double> &beta, bool unbiased = false) {
  std::vector<double> sum(numStats, 0), count(numStats, 0);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t c = 0; c < C; ++c)
      for (std::size_t f = 0; f < F; ++f) {
        sum[stat(b, c)] += x[(b * C + c) * F + f];
        count[stat(b, c)] += 1;
      }
  NormRef r;
  r.mean.resize(numStats);
  r.invStd.resize(numStats);
  std::vector<double> sq(numStats, 0);
  for (std::size_t s = 0; s < numStats; ++s)
    r.mean[s] = sum[s] / count[s];
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t c = 0; c < C; ++c)
      for (std::size_t f = 0; f < F; ++f) {
        const double d = x[(b * C + c) * F + f] - r.mean[stat(b, c)];
        sq[stat(b, c)] += d * d;
      }
  for (std::size_t s = 0; s < numStats; ++s)
    r.invStd[s] = 1 / std::sqrt(sq[s] / (unbiased ? count[s] - 1 : count[s]) + kEps);
  r.y.resize(x.size());
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t c = 0; c < C; ++c)
      for (std::size_t f = 0; f < F; ++f) {
        const std::size_t i = (b * C + c) * F + f, s = stat(b, c);
        r.y[i] = gamma[c] * (x[i] - r.mean[s]) * r.invStd[s] + beta[c];
      }
  return r;
}

/// One norm under test: its reference statistic layout and the popnn calls.
struct Norm {
  std::string name;
  unsigned groups; // 0: batch norm
  bool strided = false;
  bool layer = false;
  /// False: pass no options, so the grouping is the default (PopLibs documents
  /// groupNormStridedChannelGrouping = true: channel c is in group c % numGroups).
  bool setOption = true;

  std::size_t numStats(std::size_t B, std::size_t C) const { return groups ? B * groups : C; }
  StatIndex index(std::size_t C) const {
    const unsigned g = groups;
    const bool s = strided;
    if (!g)
      return [](std::size_t, std::size_t c) { return c; };
    return [g, s, C](std::size_t b, std::size_t c) { return b * g + (s ? c % g : c / (C / g)); };
  }
  poplar::OptionFlags options() const {
    poplar::OptionFlags o;
    if (setOption)
      o.set("groupNormStridedChannelGrouping", strided ? "true" : "false");
    return o;
  }
  std::pair<poplar::Tensor, poplar::Tensor> statistics(poplar::Graph &g, const poplar::Tensor &x,
                                                       poplar::program::Sequence &prog,
                                                       bool unbiased, bool stable) const {
    if (!groups)
      return popnn::bn::batchNormStatistics(g, x, kEps, prog, unbiased, stable);
    if (layer)
      return popnn::ln::layerNormStatistics(g, x, kEps, prog, unbiased, stable);
    return popnn::gn::groupNormStatistics(g, x, kEps, prog, groups, unbiased, stable, poplar::FLOAT,
                                          {}, options());
  }
  std::pair<poplar::Tensor, poplar::Tensor>
  normalise(poplar::Graph &g, const poplar::Tensor &x, const poplar::Tensor &gamma,
            const poplar::Tensor &beta, const poplar::Tensor &mean, const poplar::Tensor &inv,
            poplar::program::Sequence &prog) const {
    if (!groups)
      return popnn::bn::batchNormalise(g, x, gamma, beta, mean, inv, prog);
    if (layer)
      return popnn::ln::layerNormalise(g, x, gamma, beta, mean, inv, prog);
    return popnn::gn::groupNormalise(g, x, gamma, beta, mean, inv, prog, {}, options());
  }
  poplar::Tensor gradients(poplar::Graph &g, const poplar::Tensor &x, const poplar::Tensor &dy,
                           const poplar::Tensor &mean, const poplar::Tensor &inv,
                           const poplar::Tensor &gamma, poplar::program::Sequence &prog) const {
    if (!groups)
      return popnn::bn::batchNormGradients(g, x, dy, mean, inv, gamma, prog);
    if (layer)
      return popnn::ln::layerNormGradients(g, x, dy, mean, inv, gamma, prog);
    return popnn::gn::groupNormGradients(g, x, dy, mean, inv, gamma, prog, poplar::FLOAT, {},
                                         options());
  }
  std::pair<poplar::Tensor, poplar::Tensor>
  paramGradients(poplar::Graph &g, const poplar::Tensor &x, const poplar::Tensor &dy,
                 const poplar::Tensor &mean, const poplar::Tensor &inv,
                 poplar::program::Sequence &prog) const {
    if (!groups)
      return popnn::bn::batchNormParamGradients(g, x, dy, mean, inv, prog);
    if (layer)
      return popnn::ln::layerNormParamGradients(g, x, dy, mean, inv, prog);
    return popnn::gn::groupNormParamGradients(g, x, dy, mean, inv, prog, poplar::FLOAT, {},
                                              options());
  }
};

const std::size_t B = 3, C = 4, H = 3, W = 2, F = H * W;

std::vector<Norm> norms() {
  return {{"BatchNorm", 0},
          {"GroupNorm2", 2},
          {"GroupNorm2Strided", 2, true},
          {"GroupNorm2StridedByDefault", 2, true, false, false},
          {"InstanceNorm", static_cast<unsigned>(C)},
          {"GroupNorm1", 1},
          {"LayerNorm", 1, false, true}};
}

class Norms : public testing::TestWithParam<std::tuple<Norm, Layout>> {};

std::string name(const testing::TestParamInfo<std::tuple<Norm, Layout>> &info) {
  return std::get<0>(info.param).name + "_" + layoutName(std::get<1>(info.param));
}

TEST_P(Norms, StatisticsAndNormaliseMatchReference) {
  const auto &[norm, layout] = GetParam();
  const auto x = roundTo(poplar::FLOAT, randomValues(B * C * F, 31, -1, 3));
  const auto gamma = roundTo(poplar::FLOAT, randomValues(C, 32, 0.5, 1.5));
  const auto beta = roundTo(poplar::FLOAT, randomValues(C, 33));
  for (bool stable : {false, true})
    for (bool unbiased : {false, true}) {
      Harness h(layout);
      auto tx = h.input(poplar::FLOAT, {B, C, H, W}, x, "acts");
      auto tg = h.input(poplar::FLOAT, {C}, gamma, "gamma");
      auto tb = h.input(poplar::FLOAT, {C}, beta, "beta");
      auto [mean, inv] = norm.statistics(h.graph(), tx, h.prog(), unbiased, stable);
      ASSERT_EQ(mean.shape(), std::vector<std::size_t>{norm.numStats(B, C)});
      auto [y, whitened] = norm.normalise(h.graph(), tx, tg, tb, mean, inv, h.prog());
      ASSERT_EQ(y.shape(), tx.shape());
      h.output("mean", mean);
      h.output("inv", inv);
      h.output("y", y);
      auto r = h.run();
      const auto ref =
          normRef(x, B, C, F, norm.numStats(B, C), norm.index(C), gamma, beta, unbiased);
      const std::string what = stable ? "stable" : "one-pass";
      expectClose(r["mean"], ref.mean, 1e-4, 1e-4, what + " mean");
      expectClose(r["inv"], ref.invStd, 1e-4, 1e-4, what + " invStdDev");
      if (!unbiased)
        expectClose(r["y"], ref.y, 1e-4, 1e-4, what + " normalised");
    }
}

TEST_P(Norms, GradientsMatchFiniteDifference) {
  const auto &[norm, layout] = GetParam();
  const auto x = roundTo(poplar::FLOAT, randomValues(B * C * F, 34, -1, 3));
  const auto gamma = roundTo(poplar::FLOAT, randomValues(C, 35, 0.5, 1.5));
  const auto beta = roundTo(poplar::FLOAT, randomValues(C, 36));
  const auto w = roundTo(poplar::FLOAT, randomValues(B * C * F, 37, -1, 1));
  Harness h(layout);
  auto tx = h.input(poplar::FLOAT, {B, C, H, W}, x, "acts");
  auto tg = h.input(poplar::FLOAT, {C}, gamma, "gamma");
  auto tw = h.input(poplar::FLOAT, {B, C, H, W}, w, "gradsIn");
  auto [mean, inv] = norm.statistics(h.graph(), tx, h.prog(), false, true);
  h.output("dx", norm.gradients(h.graph(), tx, tw, mean, inv, tg, h.prog()));
  auto [dGamma, dBeta] = norm.paramGradients(h.graph(), tx, tw, mean, inv, h.prog());
  h.output("dGamma", dGamma);
  h.output("dBeta", dBeta);
  auto r = h.run();
  const auto idx = norm.index(C);
  const std::size_t ns = norm.numStats(B, C);
  auto lossOf = [&](const std::vector<double> &xv, const std::vector<double> &gv,
                    const std::vector<double> &bv) {
    return dot(w, normRef(xv, B, C, F, ns, idx, gv, bv).y);
  };
  expectClose(r["dx"], finiteDifference([&](const auto &v) { return lossOf(v, gamma, beta); }, x),
              2e-3, 2e-3, "input gradient");
  expectClose(r["dGamma"],
              finiteDifference([&](const auto &v) { return lossOf(x, v, beta); }, gamma), 2e-3,
              2e-3, "gamma gradient");
  expectClose(r["dBeta"],
              finiteDifference([&](const auto &v) { return lossOf(x, gamma, v); }, beta), 2e-3,
              2e-3, "beta gradient");
}

INSTANTIATE_TEST_SUITE_P(AllNorms, Norms,
                         testing::Combine(testing::ValuesIn(norms()),
                                          testing::Values(Layout::SINGLE_TILE, Layout::MULTI_TILE)),
                         name);

TEST(BatchNorm, InferenceWithRunningStatistics) {
  const auto x = roundTo(poplar::FLOAT, randomValues(B * C * F, 41));
  const auto runMean = roundTo(poplar::FLOAT, randomValues(C, 42, -0.5, 0.5));
  const auto runInv = roundTo(poplar::FLOAT, randomValues(C, 43, 0.5, 2));
  const auto gamma = roundTo(poplar::FLOAT, randomValues(C, 44, 0.5, 1.5));
  const auto beta = roundTo(poplar::FLOAT, randomValues(C, 45));
  std::vector<double> cm(C), addend(C), want(x.size());
  for (std::size_t c = 0; c < C; ++c) {
    cm[c] = static_cast<float>(gamma[c] * runInv[c]);
    addend[c] = static_cast<float>(beta[c] - gamma[c] * runMean[c] * runInv[c]);
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::size_t c = (i / F) % C;
    want[i] = gamma[c] * (x[i] - runMean[c]) * runInv[c] + beta[c];
  }
  Harness h(Layout::MULTI_TILE);
  auto tx = h.input(poplar::FLOAT, {B, C, H, W}, x, "acts");
  auto y1 = popnn::bn::batchNormalise(h.graph(), tx, h.input(poplar::FLOAT, {C}, gamma, "g"),
                                      h.input(poplar::FLOAT, {C}, beta, "b"),
                                      h.input(poplar::FLOAT, {C}, runMean, "m"),
                                      h.input(poplar::FLOAT, {C}, runInv, "i"), h.prog())
                .first;
  auto y2 = popnn::bn::batchNormalise(h.graph(), tx, h.input(poplar::FLOAT, {C}, cm, "cm"),
                                      h.input(poplar::FLOAT, {C}, addend, "add"), h.prog());
  h.output("y1", y1);
  h.output("y2", y2);
  auto r = h.run();
  expectClose(r["y1"], want, 1e-5, 1e-5, "running statistics");
  expectClose(r["y2"], want, 1e-5, 1e-5, "combined multiplicand");
}

TEST(BatchNorm, ParamUpdateAndHalfForward) {
  const auto x = roundTo(poplar::HALF, randomValues(B * C * F, 46));
  const std::vector<double> ones(C, 1.0), zeros(C, 0.0);
  Harness h(Layout::MULTI_TILE);
  auto tx = h.input(poplar::HALF, {B, C, H, W}, x, "acts");
  auto gamma = h.input(poplar::HALF, {C}, ones, "gamma");
  auto beta = h.input(poplar::HALF, {C}, zeros, "beta");
  auto [mean, inv] = popnn::bn::batchNormStatistics(h.graph(), tx, kEps, h.prog(), false);
  auto y = popnn::bn::batchNormalise(h.graph(), tx, gamma, beta, mean, inv, h.prog()).first;
  h.output("y", y);
  auto dg = h.input(poplar::HALF, {C}, std::vector<double>{1, 2, 3, 4}, "dg");
  auto db = h.input(poplar::HALF, {C}, std::vector<double>{4, 3, 2, 1}, "db");
  popnn::bn::batchNormParamUpdate(h.graph(), dg, db, -0.5f, gamma, beta, h.prog());
  h.output("gamma", gamma);
  h.output("beta", beta);
  auto r = h.run();
  const auto ref = normRef(
      x, B, C, F, C, [](auto, auto c) { return c; }, ones, zeros);
  expectClose(r["y"], ref.y, 1e-2, 1e-2, "half batch norm");
  expectClose(r["gamma"], {0.5, 0, -0.5, -1}, 1e-3, 0, "gamma update");
  expectClose(r["beta"], {-2, -1.5, -1, -0.5}, 1e-3, 0, "beta update");
}

} // namespace

TEST(BatchNorm, ChannelMajorActivationsMatchReference) {
  // Activations stored channel by channel ([C][B][H][W] underneath, as convolutions leave them)
  // take one row per channel: statistics, normalisation, inference form and gradients match the
  // same references as the [B][C] row form, with a vertex per tile instead of per (tile, sample).
  const auto x = roundTo(poplar::FLOAT, randomValues(B * C * F, 51, -1, 3));
  const auto gamma = roundTo(poplar::FLOAT, randomValues(C, 52, 0.5, 1.5));
  const auto beta = roundTo(poplar::FLOAT, randomValues(C, 53));
  const auto w = roundTo(poplar::FLOAT, randomValues(B * C * F, 54, -1, 1));
  Harness h(Layout::MULTI_TILE);
  auto channelMajor = [&](const std::vector<double> &values, const std::string &name) {
    poplar::Tensor storage = h.graph().addVariable(poplar::FLOAT, {C, B, H, W}, name);
    poputil::mapTensorLinearly(h.graph(), storage, 1, 1);
    poplar::Tensor t = storage.dimShuffle({1, 0, 2, 3}); // [B][C][H][W]
    h.input(t, values, name);
    return t;
  };
  auto tx = channelMajor(x, "acts");
  auto tw = channelMajor(w, "gradsIn");
  auto tg = h.input(poplar::FLOAT, {C}, gamma, "gamma");
  auto tb = h.input(poplar::FLOAT, {C}, beta, "beta");
  auto [mean, inv] = popnn::bn::batchNormStatistics(h.graph(), tx, kEps, h.prog(), false);
  auto [y, whitened] = popnn::bn::batchNormalise(h.graph(), tx, tg, tb, mean, inv, h.prog());
  h.output("mean", mean);
  h.output("inv", inv);
  h.output("y", y);
  h.output("dx", popnn::bn::batchNormGradients(h.graph(), tx, tw, mean, inv, tg, h.prog()));
  auto [dGamma, dBeta] = popnn::bn::batchNormParamGradients(h.graph(), tx, tw, mean, inv, h.prog());
  h.output("dGamma", dGamma);
  h.output("dBeta", dBeta);
  auto r = h.run();
  const auto stat = [](std::size_t, std::size_t c) { return c; };
  const auto ref = normRef(x, B, C, F, C, stat, gamma, beta);
  expectClose(r["mean"], ref.mean, 1e-4, 1e-4, "channel-major mean");
  expectClose(r["inv"], ref.invStd, 1e-4, 1e-4, "channel-major invStdDev");
  expectClose(r["y"], ref.y, 1e-4, 1e-4, "channel-major normalised");
  auto lossOf = [&](const std::vector<double> &xv, const std::vector<double> &gv,
                    const std::vector<double> &bv) {
    return dot(w, normRef(xv, B, C, F, C, stat, gv, bv).y);
  };
  expectClose(r["dx"], finiteDifference([&](const auto &v) { return lossOf(v, gamma, beta); }, x),
              2e-3, 2e-3, "channel-major input gradient");
  expectClose(r["dGamma"],
              finiteDifference([&](const auto &v) { return lossOf(x, v, beta); }, gamma), 2e-3,
              2e-3, "channel-major gamma gradient");
  expectClose(r["dBeta"],
              finiteDifference([&](const auto &v) { return lossOf(x, gamma, v); }, beta), 2e-3,
              2e-3, "channel-major beta gradient");
}
