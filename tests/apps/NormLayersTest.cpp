// The batch-free norms of apps/common on a small device: GroupNorm and LayerProxyNorm (layer
// norm, then the swish proxy-normalised by the statistics of swish(γ·z + β) over fixed Gaussian
// quantiles z) against naive double references, their gradients against central finite
// differences of the reference loss L = Σ gradOut ⊙ out, and their configuration errors.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <tessera/apps/Errors.hpp>
#include <tessera/apps/layers/GroupNorm.hpp>
#include <tessera/apps/layers/ProxyNorm.hpp>

#include "LayerReferences.hpp"
#include "LayerRig.hpp"

namespace tessera::apps {
namespace {

using test::dot;
using test::expectClose;
using test::finiteDifference;
using test::LayerRig;
using test::randomValues;
using test::swish;
using test::Vec;

struct Shape4 {
  std::size_t B = 2, C = 6, H = 3, W = 2;
  std::size_t size() const { return B * C * H * W; }
  std::size_t at(std::size_t b, std::size_t c, std::size_t f) const {
    return (b * C + c) * H * W + f;
  }
};

/// Each sample's groups of channels whitened over the group's channels and field.
Vec referenceWhiten(const Shape4 &s, std::size_t groups, const Vec &x, double eps) {
  Vec out(x.size());
  const std::size_t per = s.C / groups, field = s.H * s.W;
  for (std::size_t b = 0; b < s.B; ++b)
    for (std::size_t g = 0; g < groups; ++g) {
      double mean = 0, var = 0;
      const double n = double(per * field);
      for (std::size_t c = g * per; c < (g + 1) * per; ++c)
        for (std::size_t f = 0; f < field; ++f)
          mean += x[s.at(b, c, f)] / n;
      for (std::size_t c = g * per; c < (g + 1) * per; ++c)
        for (std::size_t f = 0; f < field; ++f)
          var += (x[s.at(b, c, f)] - mean) * (x[s.at(b, c, f)] - mean) / n;
      for (std::size_t c = g * per; c < (g + 1) * per; ++c)
        for (std::size_t f = 0; f < field; ++f)
          out[s.at(b, c, f)] = (x[s.at(b, c, f)] - mean) / std::sqrt(var + eps);
    }
  return out;
}

Vec referenceGroupNorm(const Shape4 &s, std::size_t groups, const Vec &x, const Vec &gamma,
                       const Vec &beta) {
  Vec out = referenceWhiten(s, groups, x, 1e-5);
  for (std::size_t b = 0; b < s.B; ++b)
    for (std::size_t c = 0; c < s.C; ++c)
      for (std::size_t f = 0; f < s.H * s.W; ++f)
        out[s.at(b, c, f)] = gamma[c] * out[s.at(b, c, f)] + beta[c];
  return out;
}

Vec referenceProxyNorm(const Shape4 &s, std::size_t quantiles, const Vec &x, const Vec &gamma,
                       const Vec &beta) {
  const std::vector<float> z = gaussianQuantiles(quantiles);
  Vec out = referenceWhiten(s, 1, x, 1e-5);
  for (std::size_t c = 0; c < s.C; ++c) {
    double mu = 0, var = 0;
    for (float q : z)
      mu += swish(gamma[c] * q + beta[c]) / double(quantiles);
    for (float q : z)
      var += std::pow(swish(gamma[c] * q + beta[c]) - mu, 2) / double(quantiles);
    for (std::size_t b = 0; b < s.B; ++b)
      for (std::size_t f = 0; f < s.H * s.W; ++f) {
        double &e = out[s.at(b, c, f)];
        e = (swish(gamma[c] * e + beta[c]) - mu) / std::sqrt(var + 1e-5);
      }
  }
  return out;
}

/// Builds `layer`'s Training forward and backward and its Inference forward, sets random
/// inputs and parameters, and checks the outputs against `reference` and every gradient against
/// its finite differences.
void checkAgainstReference(
    Layer &layer, const Shape4 &s,
    const std::function<Vec(const Vec &, const Vec &, const Vec &)> &reference) {
  LayerRig rig;
  rig.buildTrainingAndInference(layer, {s.B, s.C, s.H, s.W});

  Vec xs = randomValues(s.size(), 31, -2, 2);
  const Vec gys = randomValues(s.size(), 32);
  Vec gamma = randomValues(s.C, 33, 0.5f, 1.5f), beta = randomValues(s.C, 34);
  rig.write("x", xs);
  rig.write("gradOut", gys);
  rig.write(layer.name() + "/gamma", gamma);
  rig.write(layer.name() + "/beta", beta);
  rig.run(1);
  rig.run(2);

  const Vec want = reference(xs, gamma, beta);
  expectClose(rig.read("y"), want, 2e-5, "y");
  expectClose(rig.read("yInference"), want, 2e-5, "yInference (batch-free: the same)");
  auto loss = [&] { return dot(reference(xs, gamma, beta), gys); };
  expectClose(rig.read("gradIn"), finiteDifference(xs, loss), 5e-4, "gradIn");
  expectClose(rig.read(layer.name() + "/gamma/grad"), finiteDifference(gamma, loss), 5e-4,
              "gamma/grad");
  expectClose(rig.read(layer.name() + "/beta/grad"), finiteDifference(beta, loss), 5e-4,
              "beta/grad");
}

TEST(NormLayers, GroupNormMatchesNaiveReferenceAndFiniteDifferences) {
  const Shape4 s;
  for (std::size_t groups : {1u, 2u, 6u}) {
    SCOPED_TRACE("groups " + std::to_string(groups));
    GroupNorm norm("gn", s.C, groups);
    checkAgainstReference(norm, s, [&](const Vec &x, const Vec &gamma, const Vec &beta) {
      return referenceGroupNorm(s, groups, x, gamma, beta);
    });
  }
}

TEST(NormLayers, GaussianQuantilesAreSymmetricWithUnitSpread) {
  const std::vector<float> z = gaussianQuantiles(64);
  ASSERT_EQ(z.size(), 64u);
  double mean = 0, var = 0;
  for (std::size_t k = 0; k < z.size(); ++k) {
    EXPECT_FLOAT_EQ(z[k], -z[z.size() - 1 - k]);
    if (k) {
      EXPECT_LT(z[k - 1], z[k]);
    }
    mean += z[k] / 64.0;
  }
  for (float q : z)
    var += (q - mean) * (q - mean) / 64.0;
  EXPECT_NEAR(mean, 0.0, 1e-6);
  EXPECT_NEAR(var, 1.0, 0.05); // quantiles of N(0, 1) under-represent the tails slightly
  EXPECT_NEAR(gaussianQuantiles(2)[1], 0.6744897501960817, 1e-6); // Φ⁻¹(3/4)
}

TEST(NormLayers, LayerProxyNormMatchesNaiveReferenceAndFiniteDifferences) {
  const Shape4 s;
  LayerProxyNorm norm("lnpn", ProxyNormOptions{s.C, 16});
  checkAgainstReference(norm, s, [&](const Vec &x, const Vec &gamma, const Vec &beta) {
    return referenceProxyNorm(s, 16, x, gamma, beta);
  });
}

void expectCliErrorNaming(const std::function<void()> &build, const std::string &layer) {
  try {
    build();
    FAIL() << "no cli_error for " << layer;
  } catch (const cli_error &e) {
    EXPECT_NE(std::string(e.what()).find("'" + layer + "'"), std::string::npos) << e.what();
  }
}

TEST(NormLayers, BadConfigurationsNameTheLayer) {
  expectCliErrorNaming([] { GroupNorm("gn4", 6, 4); }, "gn4");
  expectCliErrorNaming([] { GroupNorm("gn0", 6, 0); }, "gn0");
  expectCliErrorNaming([] { LayerProxyNorm("pn0", ProxyNormOptions{0}); }, "pn0");
  LayerRig rig;
  poplar::Tensor x = rig.input("x", {2, 5, 2, 2});
  poplar::program::Sequence prog;
  GroupNorm early("gnEarly", 6, 3);
  LayerProxyNorm proxyEarly("pnEarly", ProxyNormOptions{6});
  for (Layer *layer : std::initializer_list<Layer *>{&early, &proxyEarly}) {
    try {
      layer->backward(rig.ctx(), x, true, prog);
      FAIL() << layer->name() << ": backward() before a Training forward() was accepted";
    } catch (const app_error &e) {
      EXPECT_NE(std::string(e.what()).find("'" + layer->name() + "'"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("before a Training forward"), std::string::npos)
          << e.what();
    }
  }
  poplar::Tensor half = rig.graph().addVariable(poplar::HALF, {2, 6, 2, 2}, "half");
  poputil::mapTensorLinearly(rig.graph(), half);
  LayerProxyNorm halfProxy("pnHalf", ProxyNormOptions{6});
  try {
    halfProxy.forward(rig.ctx(), half, Mode::Training, prog);
    FAIL() << "a HALF input was accepted by the FLOAT-only proxy norm";
  } catch (const app_error &e) {
    EXPECT_NE(std::string(e.what()).find("'pnHalf'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("FLOAT"), std::string::npos) << e.what();
  }
  GroupNorm wrong("gnWrong", 6, 2);
  try {
    wrong.forward(rig.ctx(), x, Mode::Training, prog);
    FAIL() << "a 5-channel input was accepted by a 6-channel norm";
  } catch (const app_error &e) {
    EXPECT_NE(std::string(e.what()).find("'gnWrong'"), std::string::npos) << e.what();
  }
}

} // namespace
} // namespace tessera::apps
