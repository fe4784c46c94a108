// Stochastic rounding (SR, and SX with plain noise and every density): bit for bit the
// reference fed with the Philox words of the poprand seed state, the same bits for the same seed
// whatever the tile mapping or host thread count, new bits for a new seed, and rounding up about
// as often as the value's distance from its lower neighbour says.
#include "GfloatTestHarness.hpp"

#include <poprand/RandomGen.hpp>
#include <poprand/codelets.hpp>
#include <reference/Common.hpp>

#include "poprand/kernels/RandomReference.hpp"

using namespace gfloat_test;
using popfloat::experimental::SpecType;
using popfloat::experimental::SRDensityType;
namespace pr = tessera::codelets::poprand;

namespace {

const reference::GfloatFormat kFormat{3, 4, 7, true, true};
constexpr std::uint32_t kDefaultSeed0 = 0xAA99330Fu, kDefaultSeed1 = 0xCC55E1B4u;

/// The 32 random bits of element `index` for seed state (s0, s1).
std::uint32_t word(std::uint32_t s0, std::uint32_t s1, std::uint64_t index) {
  return pr::elementBlock({s0, s1, 0, static_cast<pr::Stream>(0x20)}, index)[0];
}

std::vector<double> inputs(std::size_t n) {
  return reference::roundTo(poplar::FLOAT, reference::randomValues(n, 5, -40.0, 40.0));
}

struct SxCase {
  const char *name;
  GfloatCast::RoundConfig round;
  reference::GfloatNoise noise;
};

std::vector<SxCase> roundCases() {
  reference::GfloatNoise plain;
  plain.numSRBits = 5;
  reference::GfloatNoise uniform;
  uniform.numSRBits = 12;
  uniform.density = reference::GfloatDensity::UNIFORM;
  uniform.min = 0.25;
  uniform.max = 0.75;
  reference::GfloatNoise bernoulli;
  bernoulli.density = reference::GfloatDensity::BERNOULLI;
  bernoulli.threshold = static_cast<unsigned long long>(std::nearbyint(0.3 * 4294967296.0));
  std::vector<SxCase> cases = {
      {"SR", GfloatCast::RoundConfig(RoundType::SR, 24, poplar::FLOAT), {}},
      {"SX_plain", GfloatCast::RoundConfig(RoundType::SX, 5, poplar::FLOAT), plain},
      {"SX_uniform",
       GfloatCast::RoundConfig(RoundType::SX, 12, poplar::FLOAT, SRDensityType::UNIFORM, 0.0f, 0.0f,
                               0.75f, 0.25f),
       uniform},
      {"SX_bernoulli",
       GfloatCast::RoundConfig(RoundType::SX, 24, poplar::FLOAT, SRDensityType::BERNOULLI, 0.0f,
                               0.0f, 0.0f, 0.0f, 0.3f),
       bernoulli},
  };
  // The sampled densities: {density, reference density, offset, scale, min, max}.
  struct Sampled {
    const char *name;
    SRDensityType density;
    reference::GfloatDensity ref;
    float offset, scale, min, max;
  };
  const Sampled sampled[] = {
      {"SX_normal", SRDensityType::NORMAL, reference::GfloatDensity::NORMAL, 0.0f, 0.2f, -0.5f,
       0.5f},
      {"SX_truncatedNormal", SRDensityType::TRUNCATED_NORMAL,
       reference::GfloatDensity::TRUNCATED_NORMAL, 0.05f, 0.5f, -0.3f, 0.3f},
      {"SX_laplace", SRDensityType::LAPLACE, reference::GfloatDensity::LAPLACE, 0.0f, 0.15f, -0.4f,
       0.5f},
      {"SX_truncatedLaplace", SRDensityType::TRUNCATED_LAPLACE,
       reference::GfloatDensity::TRUNCATED_LAPLACE, 0.0f, 0.3f, -0.2f, 0.2f},
      {"SX_logistic", SRDensityType::LOGISTIC, reference::GfloatDensity::LOGISTIC, 0.5f, 0.1f, 0.0f,
       1.0f},
      {"SX_truncatedLogistic", SRDensityType::TRUNCATED_LOGISTIC,
       reference::GfloatDensity::TRUNCATED_LOGISTIC, 0.5f, 0.3f, 0.2f, 0.8f},
      {"SX_logitNormal", SRDensityType::LOGIT_NORMAL, reference::GfloatDensity::LOGIT_NORMAL, 0.0f,
       1.0f, 0.0f, 0.9f},
      {"SX_truncatedLogitNormal", SRDensityType::TRUNCATED_LOGIT_NORMAL,
       reference::GfloatDensity::TRUNCATED_LOGIT_NORMAL, 0.0f, 2.0f, 0.3f, 0.7f},
  };
  for (const auto &d : sampled) {
    reference::GfloatNoise noise;
    noise.density = d.ref;
    noise.offset = d.offset;
    noise.scale = d.scale;
    noise.min = d.min;
    noise.max = d.max;
    cases.push_back({d.name,
                     GfloatCast::RoundConfig(RoundType::SX, 24, poplar::FLOAT, d.density, d.offset,
                                             d.scale, d.max, d.min),
                     noise});
  }
  return cases;
}

/// The noise of element `index` for seed state (s0, s1): its word and its 8 attempt blocks.
reference::GfloatNoise noiseFor(reference::GfloatNoise noise, std::uint32_t s0, std::uint32_t s1,
                                std::uint64_t index) {
  const pr::StreamKey key{s0, s1, 0, static_cast<pr::Stream>(0x20)};
  noise.blocks.clear();
  for (std::uint32_t attempt = 0; attempt < 8; ++attempt)
    noise.blocks.push_back(pr::elementBlock(key, index, attempt));
  noise.word = noise.blocks[0][0];
  return noise;
}

std::map<std::string, std::vector<double>> runStochastic(Layout layout, unsigned threads,
                                                         const std::vector<double> &x) {
  Harness h(layout);
  auto in = h.input(poplar::FLOAT, x, "x");
  for (const auto &c : roundCases()) {
    GfloatCast cast(formatConfig(kFormat, poplar::FLOAT), c.round, false, SpecType::FP32);
    h.output(c.name, cast.castNativeToGfloat(h.graph(), in, h.prog()));
  }
  return h.run(threads);
}

TEST(GfloatStochastic, MatchesTheReferenceWithPhiloxWordsOfTheDefaultSeed) {
  const auto x = inputs(3000);
  const auto out = runStochastic(Layout::MULTI_TILE, 1, x);
  for (const auto &c : roundCases()) {
    const auto &y = out.at(c.name);
    for (std::size_t i = 0; i < x.size(); ++i) {
      const reference::GfloatNoise noise = noiseFor(c.noise, kDefaultSeed0, kDefaultSeed1, i);
      const double expected =
          reference::gfloatRound(x[i], kFormat, toReference(c.round.getRoundMode()), false, noise);
      ASSERT_TRUE(sameValue(y[i], expected)) << c.name << " x=" << x[i] << " i=" << i;
    }
  }
}

TEST(GfloatStochastic, SameBitsForAnyTileMappingAndHostThreadCount) {
  const auto x = inputs(4000);
  const auto reference = runStochastic(Layout::SINGLE_TILE, 1, x);
  EXPECT_EQ(runStochastic(Layout::MULTI_TILE, 1, x), reference);
  EXPECT_EQ(runStochastic(Layout::MULTI_TILE, 2, x), reference);
}

/// SR of every element of `x` after poprand::setSeed(master, modifier), run `times` times.
std::vector<double> srWithSeed(std::uint32_t m0, std::uint32_t m1, std::uint32_t modifier,
                               const std::vector<double> &x) {
  Harness h(Layout::MULTI_TILE);
  poprand::addCodelets(h.graph());
  auto master = h.input(poplar::UNSIGNED_INT, {double(m0), double(m1)}, "master");
  poprand::setSeed(h.graph(), master, modifier, h.prog());
  auto in = h.input(poplar::HALF, x, "x");
  GfloatCast cast(formatConfig(kFormat, poplar::FLOAT),
                  GfloatCast::RoundConfig(RoundType::SR, 24, poplar::FLOAT), false, SpecType::AUTO);
  auto codes = cast.castNativeToGfloat(h.graph(), in, h.prog());
  h.output("codes", codes);
  return h.run().at("codes");
}

TEST(GfloatStochastic, SetSeedDecidesTheBits) {
  const auto x = reference::roundTo(poplar::HALF, inputs(2000));
  const auto a = srWithSeed(1234, 5678, 9, x);
  EXPECT_EQ(srWithSeed(1234, 5678, 9, x), a);
  EXPECT_NE(srWithSeed(1234, 5679, 9, x), a);
  const auto values = reference::gfloatPositiveValues(kFormat);
  const auto state = pr::seedStateFromMaster(1234, 5678, 9);
  for (std::size_t i = 0; i < x.size(); ++i) {
    reference::GfloatNoise noise;
    noise.word = word(state[0], state[1], i);
    const double expected =
        reference::gfloatRound(x[i], kFormat, reference::GfloatRound::SR, false, noise);
    ASSERT_EQ(static_cast<unsigned>(a[i]), reference::gfloatEncode(expected, kFormat, values))
        << x[i];
  }
}

TEST(GfloatStochastic, RoundsUpAsOftenAsTheFractionSays) {
  // 1.0 + 0.25 ulp (ulp 1/8 at 1.0): up with probability 1/4; -1.0 - 0.75 ulp: away from zero
  // with probability 3/4.
  std::vector<double> x(8000, 1.0 + 0.25 / 8);
  x.insert(x.end(), 8000, -1.0 - 0.75 / 8);
  const auto y = runStochastic(Layout::MULTI_TILE, 1, x).at("SR");
  std::size_t upFirst = 0, upSecond = 0;
  for (std::size_t i = 0; i < 8000; ++i) {
    upFirst += y[i] == 1.125;
    ASSERT_TRUE(y[i] == 1.0 || y[i] == 1.125);
    upSecond += y[8000 + i] == -1.125;
    ASSERT_TRUE(y[8000 + i] == -1.0 || y[8000 + i] == -1.125);
  }
  EXPECT_NEAR(upFirst / 8000.0, 0.25, 0.02);
  EXPECT_NEAR(upSecond / 8000.0, 0.75, 0.02);
}

} // namespace

namespace {

TEST(GfloatStochastic, NoiselessDensitiesAreTheNearestAndTruncatingModes) {
  // NORMAL noise of scale 0 is 0 and rounds to nearest (ties away, RA); LOGISTIC noise clipped
  // to [0, 0] adds nothing before truncation (RZ).
  const auto x = reference::roundTo(poplar::FLOAT, probeValues(kFormat));
  Harness h(Layout::MULTI_TILE);
  auto in = h.input(poplar::FLOAT, x, "x");
  const auto format = formatConfig(kFormat, poplar::FLOAT);
  GfloatCast nearest(format,
                     GfloatCast::RoundConfig(RoundType::SX, 24, poplar::FLOAT,
                                             SRDensityType::NORMAL, 0.0f, 0.0f, 0.5f, -0.5f),
                     false, SpecType::FP32);
  GfloatCast truncating(format,
                        GfloatCast::RoundConfig(RoundType::SX, 24, poplar::FLOAT,
                                                SRDensityType::LOGISTIC, 0.5f, 1.0f, 0.0f, 0.0f),
                        false, SpecType::FP32);
  h.output("nearest", nearest.castNativeToGfloat(h.graph(), in, h.prog()));
  h.output("truncating", truncating.castNativeToGfloat(h.graph(), in, h.prog()));
  const auto out = h.run();
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_TRUE(sameValue(out.at("nearest")[i],
                          reference::gfloatRound(x[i], kFormat, reference::GfloatRound::RA, false)))
        << x[i];
    EXPECT_TRUE(sameValue(out.at("truncating")[i],
                          reference::gfloatRound(x[i], kFormat, reference::GfloatRound::RZ, false)))
        << x[i];
  }
}

} // namespace

namespace {

TEST(GfloatStochastic, ViewsAreCastInTheirOwnRowMajorOrder) {
  // A transposed view of a [24][30] tensor spread over 16 tiles: every tile holds many short
  // runs of the view. Element i of the view (row-major) draws the noise of index i.
  const std::size_t rows = 24, cols = 30;
  const auto x = inputs(rows * cols);
  Harness h(Layout::MULTI_TILE);
  auto t = h.input(poplar::FLOAT, x, "x").reshape({rows, cols});
  const poplar::Tensor view = t.transpose();
  GfloatCast sr(formatConfig(kFormat, poplar::FLOAT),
                GfloatCast::RoundConfig(RoundType::SR, 24, poplar::FLOAT), false, SpecType::FP32);
  GfloatCast rn(formatConfig(kFormat, poplar::FLOAT),
                GfloatCast::RoundConfig(RoundType::RN, 24, poplar::FLOAT), false, SpecType::FP32);
  h.output("sr", sr.castNativeToGfloat(h.graph(), view, h.prog()));
  h.output("rn", rn.castNativeToGfloat(h.graph(), view, h.prog()));
  const auto out = h.run();
  for (std::size_t i = 0; i < cols; ++i)
    for (std::size_t j = 0; j < rows; ++j) {
      const std::size_t viewIndex = i * rows + j;
      const double value = x[j * cols + i];
      reference::GfloatNoise noise;
      noise.word = word(kDefaultSeed0, kDefaultSeed1, viewIndex);
      ASSERT_TRUE(sameValue(
          out.at("sr")[viewIndex],
          reference::gfloatRound(value, kFormat, reference::GfloatRound::SR, false, noise)))
          << i << "," << j;
      ASSERT_TRUE(
          sameValue(out.at("rn")[viewIndex],
                    reference::gfloatRound(value, kFormat, reference::GfloatRound::RN, false)))
          << i << "," << j;
    }
}

} // namespace
