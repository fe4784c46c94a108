// Layer norm (and group norm) on rank-2 [tokens][hidden] activations, BERT's shape, where each
// statistic is one row and γ, β run along it: statistics (one-pass and stable), normalise, input
// and parameter gradients against a naive double reference, for hidden sizes below, at and off
// the vector width, on one tile and on 16 with rows split between tiles.
// Tolerances: 1e-4 abs + 1e-4 rel (float sums of at most a few hundred terms).
#include <cmath>

#include <popnn/GroupNorm.hpp>
#include <popnn/LayerNorm.hpp>

#include "PopnnTestHarness.hpp"

using namespace popnn_test;

namespace {

constexpr float kEps = 1e-3f;

struct Reference {
  std::vector<double> mean, invStd, whitened, y, dx, dGamma, dBeta;
};

/// x, dy: [T][H]; statistics over each of the `groups` consecutive blocks of a row.
Reference reference(const std::vector<double> &x, const std::vector<double> &dy,
                    const std::vector<double> &gamma, const std::vector<double> &beta,
                    std::size_t T, std::size_t H, std::size_t groups) {
  const std::size_t n = H / groups, numStats = T * groups;
  Reference r;
  r.mean.assign(numStats, 0);
  r.invStd.assign(numStats, 0);
  r.whitened.resize(x.size());
  r.y.resize(x.size());
  r.dx.resize(x.size());
  r.dGamma.assign(H, 0);
  r.dBeta.assign(H, 0);
  for (std::size_t s = 0; s < numStats; ++s) {
    const std::size_t at = s * n; // statistic s covers elements [s * n, (s + 1) * n)
    double sum = 0, sq = 0, sumG = 0, sumGW = 0;
    for (std::size_t i = at; i < at + n; ++i)
      sum += x[i];
    r.mean[s] = sum / n;
    for (std::size_t i = at; i < at + n; ++i)
      sq += (x[i] - r.mean[s]) * (x[i] - r.mean[s]);
    r.invStd[s] = 1 / std::sqrt(sq / n + kEps);
    for (std::size_t i = at; i < at + n; ++i) {
      const std::size_t c = i % H;
      r.whitened[i] = (x[i] - r.mean[s]) * r.invStd[s];
      r.y[i] = gamma[c] * r.whitened[i] + beta[c];
      sumG += dy[i] * gamma[c];
      sumGW += dy[i] * gamma[c] * r.whitened[i];
      r.dGamma[c] += dy[i] * r.whitened[i];
      r.dBeta[c] += dy[i];
    }
    for (std::size_t i = at; i < at + n; ++i)
      r.dx[i] = r.invStd[s] * (dy[i] * gamma[i % H] - sumG / n - r.whitened[i] * sumGW / n);
  }
  return r;
}

struct Case {
  std::size_t tokens, hidden;
  unsigned groups; // 1: popnn::ln, else popnn::gn
};

class Rows2d : public testing::TestWithParam<std::tuple<Case, Layout>> {};

std::string name(const testing::TestParamInfo<std::tuple<Case, Layout>> &info) {
  const Case &c = std::get<0>(info.param);
  return (c.groups == 1 ? std::string("LayerNorm") : "GroupNorm" + std::to_string(c.groups)) + "_" +
         std::to_string(c.tokens) + "x" + std::to_string(c.hidden) + "_" +
         layoutName(std::get<1>(info.param));
}

TEST_P(Rows2d, ForwardAndGradientsMatchReference) {
  const auto &[shape, layout] = GetParam();
  const std::size_t T = shape.tokens, H = shape.hidden, G = shape.groups;
  const auto x = roundTo(poplar::FLOAT, randomValues(T * H, 71, -1, 3));
  const auto dy = roundTo(poplar::FLOAT, randomValues(T * H, 72, -1, 1));
  const auto gamma = roundTo(poplar::FLOAT, randomValues(H, 73, 0.5, 1.5));
  const auto beta = roundTo(poplar::FLOAT, randomValues(H, 74));
  const Reference ref = reference(x, dy, gamma, beta, T, H, G);
  for (bool stable : {false, true}) {
    Harness h(layout);
    auto &g = h.graph();
    auto tx = h.input(poplar::FLOAT, {T, H}, x, "acts");
    auto tdy = h.input(poplar::FLOAT, {T, H}, dy, "gradsIn");
    auto tg = h.input(poplar::FLOAT, {H}, gamma, "gamma");
    auto tb = h.input(poplar::FLOAT, {H}, beta, "beta");
    poplar::Tensor mean, inv, y, w, dx, dGamma, dBeta;
    if (G == 1) {
      std::tie(mean, inv) = popnn::ln::layerNormStatistics(g, tx, kEps, h.prog(), false, stable);
      std::tie(y, w) = popnn::ln::layerNormalise(g, tx, tg, tb, mean, inv, h.prog());
      dx = popnn::ln::layerNormGradients(g, w, tdy, inv, tg, h.prog());
      std::tie(dGamma, dBeta) = popnn::ln::layerNormParamGradients(g, w, tdy, h.prog());
    } else {
      // The reference groups consecutive channels (not PopLibs' default strided groups).
      const poplar::OptionFlags contiguous{{"groupNormStridedChannelGrouping", "false"}};
      std::tie(mean, inv) = popnn::gn::groupNormStatistics(g, tx, kEps, h.prog(), G, false, stable,
                                                           poplar::FLOAT, {}, contiguous);
      std::tie(y, w) =
          popnn::gn::groupNormalise(g, tx, tg, tb, mean, inv, h.prog(), {}, contiguous);
      dx = popnn::gn::groupNormGradients(g, w, tdy, inv, tg, h.prog(), poplar::FLOAT, {},
                                         contiguous);
      std::tie(dGamma, dBeta) =
          popnn::gn::groupNormParamGradients(g, w, tdy, h.prog(), poplar::FLOAT, {}, contiguous);
    }
    ASSERT_EQ(mean.shape(), std::vector<std::size_t>{T * G});
    h.output("mean", mean);
    h.output("inv", inv);
    h.output("y", y);
    h.output("whitened", w);
    h.output("dx", dx);
    h.output("dGamma", dGamma);
    h.output("dBeta", dBeta);
    auto r = h.run();
    const std::string what = stable ? "stable " : "one-pass ";
    expectClose(r["mean"], ref.mean, 1e-4, 1e-4, what + "mean");
    expectClose(r["inv"], ref.invStd, 1e-4, 1e-4, what + "invStdDev");
    expectClose(r["whitened"], ref.whitened, 1e-4, 1e-4, what + "whitened");
    expectClose(r["y"], ref.y, 1e-4, 1e-4, what + "normalised");
    expectClose(r["dx"], ref.dx, 1e-4, 1e-4, what + "input gradient");
    expectClose(r["dGamma"], ref.dGamma, 1e-4, 1e-4, what + "gamma gradient");
    expectClose(r["dBeta"], ref.dBeta, 1e-4, 1e-4, what + "beta gradient");
  }
}

INSTANTIATE_TEST_SUITE_P(HiddenSizes, Rows2d,
                         testing::Combine(testing::Values(Case{11, 7, 1}, Case{9, 100, 1},
                                                          Case{5, 256, 1}, Case{40, 16, 1},
                                                          Case{9, 100, 2}, Case{6, 48, 3}),
                                          testing::Values(Layout::SINGLE_TILE, Layout::MULTI_TILE)),
                         name);

} // namespace
