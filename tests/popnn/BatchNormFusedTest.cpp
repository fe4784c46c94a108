// popnn::bn's fused passes (statistics, normalise, parameter and input gradients from shared
// one-read sums) against a closed-form double reference, on odd sizes whose rows straddle tile
// boundaries, with activations batch-major ([B][C][H][W] in memory), channel-major ([C][B][H][W]
// in memory, viewed as [B][C][H][W], as the ResNet trainer lays them out), on one tile, and with
// gradsIn laid out differently from the activations; FLOAT and HALF; 1 vs 2 host threads
// bit-identical. Tolerances: FLOAT 1e-4 abs + 1e-4 rel, HALF 3e-2 abs + 3e-2 rel.
#include <cmath>
#include <sstream>

#include <popnn/BatchNorm.hpp>

#include "PopnnTestHarness.hpp"

using namespace popnn_test;

namespace {

constexpr float kEps = 1e-3f;

enum class ActsLayout { BATCH_MAJOR, CHANNEL_MAJOR, ONE_TILE, MIXED };

const char *actsLayoutName(ActsLayout l) {
  switch (l) {
  case ActsLayout::BATCH_MAJOR:
    return "batchMajor";
  case ActsLayout::CHANNEL_MAJOR:
    return "channelMajor";
  case ActsLayout::ONE_TILE:
    return "oneTile";
  case ActsLayout::MIXED:
    return "mixed";
  }
  return "?";
}

struct Case {
  std::vector<std::size_t> shape; // [B][C][field…]
  ActsLayout layout;
  poplar::Type type;
  bool stable;
};

/// Adds a [B][C][field…] input. Channel-major tensors are [C][B][field…] variables spread over
/// the tiles in runs of 5 elements (so rows split between tiles), viewed as [B][C][field…].
poplar::Tensor addActs(Harness &h, const poplar::Type &type, const std::vector<std::size_t> &shape,
                       bool channelMajor, const std::vector<double> &values,
                       const std::string &name) {
  if (!channelMajor)
    return h.input(type, shape, values, name);
  std::vector<std::size_t> cShape = shape;
  std::swap(cShape[0], cShape[1]);
  poplar::Tensor t = h.graph().addVariable(type, cShape, name);
  poputil::mapTensorLinearly(h.graph(), t, 1, 5);
  std::vector<unsigned> perm(shape.size());
  for (unsigned i = 0; i < perm.size(); ++i)
    perm[i] = i;
  std::swap(perm[0], perm[1]);
  poplar::Tensor view = t.dimShuffle(perm);
  h.input(view, values, name);
  return view;
}

/// Everything the layer computes, in double: statistics, forward, parameter and input gradients.
struct Reference {
  std::vector<double> mean, invStd, y, whitened, dGamma, dBeta, dx;
};

Reference reference(const std::vector<double> &x, const std::vector<double> &dy,
                    const std::vector<double> &gamma, const std::vector<double> &beta,
                    std::size_t B, std::size_t C, std::size_t F) {
  Reference r;
  const double n = double(B * F);
  r.mean.assign(C, 0);
  r.invStd.assign(C, 0);
  r.dGamma.assign(C, 0);
  r.dBeta.assign(C, 0);
  r.y.resize(x.size());
  r.whitened.resize(x.size());
  r.dx.resize(x.size());
  auto at = [&](std::size_t b, std::size_t c, std::size_t f) { return (b * C + c) * F + f; };
  for (std::size_t c = 0; c < C; ++c) {
    double s = 0, sq = 0;
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t f = 0; f < F; ++f)
        s += x[at(b, c, f)];
    r.mean[c] = s / n;
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t f = 0; f < F; ++f)
        sq += (x[at(b, c, f)] - r.mean[c]) * (x[at(b, c, f)] - r.mean[c]);
    r.invStd[c] = 1 / std::sqrt(sq / n + kEps);
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t f = 0; f < F; ++f) {
        const std::size_t i = at(b, c, f);
        r.whitened[i] = (x[i] - r.mean[c]) * r.invStd[c];
        r.y[i] = gamma[c] * r.whitened[i] + beta[c];
        r.dGamma[c] += dy[i] * r.whitened[i];
        r.dBeta[c] += dy[i];
      }
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t f = 0; f < F; ++f) {
        const std::size_t i = at(b, c, f);
        r.dx[i] =
            gamma[c] * r.invStd[c] * (dy[i] - r.dBeta[c] / n - r.whitened[i] * r.dGamma[c] / n);
      }
  }
  return r;
}

struct Inputs {
  std::vector<double> x, dy, gamma, beta;
};

Inputs inputsFor(const Case &c) {
  const std::size_t n = numElements(c.shape), C = c.shape[1];
  return {roundTo(c.type, randomValues(n, 71, -1, 3)), roundTo(c.type, randomValues(n, 72, -1, 1)),
          roundTo(c.type, randomValues(C, 73, 0.5, 1.5)), roundTo(c.type, randomValues(C, 74))};
}

/// Builds the training step the ResNet layer builds and runs it with `threads` host threads.
std::map<std::string, std::vector<double>> run(const Case &c, const Inputs &in, unsigned threads) {
  const bool oneTile = c.layout == ActsLayout::ONE_TILE;
  Harness h(oneTile ? Layout::SINGLE_TILE : Layout::MULTI_TILE);
  auto &g = h.graph();
  const std::size_t C = c.shape[1];
  const bool actsChannelMajor =
      c.layout == ActsLayout::CHANNEL_MAJOR || c.layout == ActsLayout::MIXED;
  auto x = addActs(h, c.type, c.shape, actsChannelMajor, in.x, "acts");
  auto dy = addActs(h, c.type, c.shape, c.layout == ActsLayout::CHANNEL_MAJOR, in.dy, "gradsIn");
  auto gamma = h.input(c.type, {C}, in.gamma, "gamma");
  auto beta = h.input(c.type, {C}, in.beta, "beta");
  auto [mean, inv] = popnn::bn::batchNormStatistics(g, x, kEps, h.prog(), false, c.stable);
  auto [y, whitened] = popnn::bn::batchNormalise(g, x, gamma, beta, mean, inv, h.prog());
  auto [dGamma, dBeta] = popnn::bn::batchNormParamGradients(g, whitened, dy, h.prog());
  auto dx = popnn::bn::batchNormGradients(g, whitened, dy, inv, gamma, h.prog());
  // The (acts, mean, invStdDev) overloads whiten internally; they must agree with the above.
  auto dxActs = popnn::bn::batchNormGradients(g, x, dy, mean, inv, gamma, h.prog());
  auto dGammaActs = popnn::bn::batchNormParamGradients(g, x, dy, mean, inv, h.prog()).first;
  for (auto [name, t] : {std::pair{"mean", mean},
                         {"inv", inv},
                         {"y", y},
                         {"whitened", whitened},
                         {"dGamma", dGamma},
                         {"dBeta", dBeta},
                         {"dx", dx},
                         {"dxActs", dxActs},
                         {"dGammaActs", dGammaActs}})
    h.output(name, t);
  poplar::OptionFlags opts;
  opts.set("target.hostThreads", std::to_string(threads));
  return h.run(1, opts);
}

std::string caseName(const Case &c) {
  // Streamed, not `"_" + std::string`: GCC 12 raises a false -Wrestrict alarm on the latter.
  std::ostringstream s;
  s << actsLayoutName(c.layout);
  for (auto d : c.shape)
    s << '_' << d;
  s << (c.type == poplar::HALF ? "_half" : "_float") << (c.stable ? "_stable" : "_onePass");
  return s.str();
}

/// How GoogleTest prints a failing case.
void PrintTo(const Case &c, std::ostream *os) { *os << caseName(c); }

class BatchNormFused : public testing::TestWithParam<Case> {};

TEST_P(BatchNormFused, MatchesDoubleReferenceAndIsThreadCountIndependent) {
  const Case &c = GetParam();
  const Inputs in = inputsFor(c);
  const std::size_t B = c.shape[0], C = c.shape[1], F = numElements(c.shape) / (B * C);
  const Reference ref = reference(in.x, in.dy, in.gamma, in.beta, B, C, F);
  const auto one = run(c, in, 1);
  const double tol = c.type == poplar::HALF ? 3e-2 : 1e-4;
  expectClose(one.at("mean"), ref.mean, tol, tol, "mean");
  expectClose(one.at("inv"), ref.invStd, tol, tol, "invStdDev");
  expectClose(one.at("whitened"), ref.whitened, tol, tol, "whitened");
  expectClose(one.at("y"), ref.y, tol, tol, "normalised");
  // Sums of B * F products: the absolute tolerance grows with the count.
  const double sumTol = tol * std::sqrt(double(B * F));
  expectClose(one.at("dGamma"), ref.dGamma, sumTol, tol, "gamma gradient");
  expectClose(one.at("dBeta"), ref.dBeta, sumTol, tol, "beta gradient");
  expectClose(one.at("dx"), ref.dx, tol, tol, "input gradient");
  expectClose(one.at("dxActs"), ref.dx, tol, tol, "input gradient from acts");
  expectClose(one.at("dGammaActs"), ref.dGamma, sumTol, tol, "gamma gradient from acts");
  const auto two = run(c, in, 2);
  for (const auto &[name, values] : one)
    EXPECT_EQ(two.at(name), values) << name << ": 2 host threads differ from 1";
}

std::string testName(const testing::TestParamInfo<Case> &info) { return caseName(info.param); }

INSTANTIATE_TEST_SUITE_P(
    Layouts, BatchNormFused,
    testing::Values(Case{{3, 5, 7, 3}, ActsLayout::BATCH_MAJOR, poplar::FLOAT, false},
                    Case{{3, 5, 7, 3}, ActsLayout::CHANNEL_MAJOR, poplar::FLOAT, false},
                    Case{{3, 5, 7, 3}, ActsLayout::CHANNEL_MAJOR, poplar::FLOAT, true},
                    Case{{3, 5, 7, 3}, ActsLayout::ONE_TILE, poplar::FLOAT, false},
                    Case{{3, 5, 7, 3}, ActsLayout::MIXED, poplar::FLOAT, true},
                    Case{{2, 3, 41}, ActsLayout::CHANNEL_MAJOR, poplar::FLOAT, false},
                    Case{{9, 5}, ActsLayout::BATCH_MAJOR, poplar::FLOAT, false},
                    Case{{9, 5}, ActsLayout::CHANNEL_MAJOR, poplar::FLOAT, true},
                    Case{{1, 1, 1, 1}, ActsLayout::BATCH_MAJOR, poplar::FLOAT, false},
                    Case{{3, 5, 7, 3}, ActsLayout::BATCH_MAJOR, poplar::HALF, false},
                    Case{{3, 5, 7, 3}, ActsLayout::CHANNEL_MAJOR, poplar::HALF, true}),
    testName);

} // namespace
