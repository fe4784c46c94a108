// poprand against the host reference (RandomReference.hpp) bit for bit, independence from tile
// mapping and host threads, stream separation, and distribution statistics on 64Ki samples.
//
// Statistical bounds (all deterministic for the fixed seeds used; stated so a change to the
// generator that breaks them is a real regression, not noise):
//  - mean within 5 standard errors (sigma / sqrt(n)) of the exact mean;
//  - variance within 3% of the exact variance (its standard error is ~0.6% at n = 64Ki);
//  - Kolmogorov-Smirnov distance to the exact CDF below 1.95 / sqrt(n) (0.1% critical value);
//  - Bernoulli / dropout keep rates within 5 binomial standard errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include <poplar/Half.hpp>

#include "PoprandTestSupport.hpp"
#include "poprand/kernels/PhiloxKernels.hpp"
#include "poprand/kernels/RandomReference.hpp"

using namespace poplar;
using namespace poplar::program;
using namespace poprandtest;
namespace ref = tessera::codelets::poprand;

namespace {

constexpr std::size_t kStatN = 64 * 1024;

ref::StreamKey keyOf(const RunSpec &spec, unsigned modifier, ref::Stream s) {
  return {spec.seed[0], spec.seed[1], modifier, s};
}

double mean(const std::vector<float> &v) {
  double s = 0;
  for (float x : v)
    s += x;
  return s / static_cast<double>(v.size());
}
double variance(const std::vector<float> &v) {
  const double m = mean(v);
  double s = 0;
  for (float x : v)
    s += (x - m) * (x - m);
  return s / static_cast<double>(v.size() - 1);
}
/// Kolmogorov-Smirnov distance between the samples and `cdf`.
template <class Cdf> double ksDistance(std::vector<float> v, Cdf cdf) {
  std::sort(v.begin(), v.end());
  const double n = static_cast<double>(v.size());
  double d = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double f = cdf(static_cast<double>(v[i]));
    d = std::max({d, std::fabs(f - static_cast<double>(i) / n),
                  std::fabs(f - static_cast<double>(i + 1) / n)});
  }
  return d;
}
double phi(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

Builder uniformOf(Type type, double lo, double hi, unsigned modifier = 0) {
  return [=](Graph &g, const Tensor *seed, const Tensor &r, Sequence &p) {
    return poprand::uniform(g, seed, modifier, r, type, lo, hi, p, "u");
  };
}

std::vector<float> expectedUniform(const RunSpec &spec, std::size_t n, float lo, float hi,
                                   unsigned modifier = 0) {
  std::vector<float> want(n);
  const auto key = keyOf(spec, modifier, ref::Stream::Uniform);
  for (std::size_t i = 0; i < n; ++i)
    want[i] = ref::uniformFloat(ref::elementBlock(key, i)[0], lo, hi - lo);
  return want;
}

std::vector<std::uint32_t> bitsOf(const std::vector<float> &v) {
  std::vector<std::uint32_t> b(v.size());
  std::memcpy(b.data(), v.data(), v.size() * sizeof(float));
  return b;
}

} // namespace

TEST(PoprandPhiloxReference, MatchesPublishedKnownAnswers) {
  // Random123's known-answer vectors for philox4x32_10.
  EXPECT_EQ(ref::philox4x32_10({0, 0, 0, 0}, 0, 0),
            (ref::PhiloxBlock{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  EXPECT_EQ(ref::philox4x32_10({~0u, ~0u, ~0u, ~0u}, ~0u, ~0u),
            (ref::PhiloxBlock{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
  EXPECT_EQ(ref::philox4x32_10({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, 0xa4093822u,
                               0x299f31d0u),
            (ref::PhiloxBlock{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

TEST(PoprandPhiloxKernel, MatchesReferenceForOddSizesAndOffsets) {
  const auto kernel = ref::philoxBlocksKernel();
  const ref::StreamKey key{0xdeadbeefu, 0x01234567u, 77u, ref::Stream::Normal};
  for (std::uint64_t first : {0ull, 5ull, (1ull << 32) + 3ull})
    for (std::size_t n : {0u, 1u, 3u, 7u, 8u, 15u, 16u, 17u, 33u, 64u, 1000u}) {
      std::vector<std::uint32_t> got[4], want[4];
      for (int w = 0; w < 4; ++w) {
        got[w].assign(n + 1, 0xFFFFFFFFu);
        want[w].assign(n + 1, 0xFFFFFFFFu);
      }
      kernel(key, first, n, got[0].data(), got[1].data(), got[2].data(), got[3].data());
      ref::philoxBlocksReference(key, first, n, want[0].data(), want[1].data(), want[2].data(),
                                 want[3].data());
      for (int w = 0; w < 4; ++w)
        EXPECT_EQ(got[w], want[w]) << "first " << first << " n " << n << " word " << w;
    }
}

TEST(PoprandUniform, FloatMatchesHostReferenceBitForBitAndStaysInRange) {
  RunSpec spec;
  spec.tiles = 16;
  spec.shape = {37, 11};
  const auto got = run<float>(spec, uniformOf(FLOAT, -2.0, 3.0));
  const auto want = expectedUniform(spec, got.size(), -2.0f, 3.0f);
  EXPECT_EQ(bitsOf(got), bitsOf(want));
  for (float x : got) {
    EXPECT_GE(x, -2.0f);
    EXPECT_LE(x, 3.0f);
  }
}

TEST(PoprandUniform, SameSeedGivesSameBitsForAnyTileMappingAndThreadCount) {
  RunSpec a;
  a.shape = {24, 19};
  const auto base = run<float>(a, uniformOf(FLOAT, 0.0, 1.0));
  for (Layout layout : {Layout::Linear, Layout::Scrambled, Layout::Transposed})
    for (unsigned tiles : {4u, 16u})
      for (unsigned threads : {1u, 3u}) {
        RunSpec b = a;
        b.layout = layout;
        b.tiles = tiles;
        b.hostThreads = threads;
        EXPECT_EQ(bitsOf(run<float>(b, uniformOf(FLOAT, 0.0, 1.0))), bitsOf(base))
            << "layout " << static_cast<int>(layout) << " tiles " << tiles << " threads "
            << threads;
      }
}

TEST(PoprandUniform, DifferentSeedModifiersAndSeedsGiveDifferentStreams) {
  RunSpec spec;
  spec.shape = {256};
  const auto m0 = run<float>(spec, uniformOf(FLOAT, 0.0, 1.0, 0));
  const auto m1 = run<float>(spec, uniformOf(FLOAT, 0.0, 1.0, 1));
  EXPECT_EQ(bitsOf(m1), bitsOf(expectedUniform(spec, 256, 0.0f, 1.0f, 1)));
  RunSpec other = spec;
  other.seed[1] ^= 1u;
  const auto s1 = run<float>(other, uniformOf(FLOAT, 0.0, 1.0, 0));
  std::size_t sameModifier = 0, sameSeed = 0;
  for (std::size_t i = 0; i < 256; ++i) {
    sameModifier += m0[i] == m1[i];
    sameSeed += m0[i] == s1[i];
  }
  // Independent streams of 24-bit values almost never agree element-wise.
  EXPECT_LE(sameModifier, 1u);
  EXPECT_LE(sameSeed, 1u);
}

TEST(PoprandUniform, HalfIsTheReferenceRoundedToHalf) {
  RunSpec spec;
  spec.shape = {5, 67};
  spec.layout = Layout::Scrambled;
  const auto got = run<half>(spec, uniformOf(HALF, -1.0, 1.0));
  const auto want = expectedUniform(spec, got.size(), -1.0f, 1.0f);
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i].bits, half(want[i]).bits) << "element " << i;
}

TEST(PoprandUniform, IntMatchesReferenceAndCoversTheInclusiveRange) {
  RunSpec spec;
  spec.tiles = 16;
  spec.shape = {4096};
  const auto got = run<int>(spec, uniformOf(INT, -3.0, 4.0));
  const auto key = keyOf(spec, 0, ref::Stream::Uniform);
  std::vector<int> counts(8, 0);
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i], ref::uniformInt(ref::elementBlock(key, i)[0], -3, 8)) << "element " << i;
    ASSERT_GE(got[i], -3);
    ASSERT_LE(got[i], 4);
    ++counts[got[i] + 3];
  }
  // 8 values, 512 expected each; binomial sd ~ 21: allow 5 sd.
  for (int c : counts)
    EXPECT_NEAR(c, 512, 106);
}

TEST(PoprandUniform, StatisticsOf64KiSamples) {
  RunSpec spec;
  spec.tiles = 16;
  spec.shape = {kStatN};
  const auto got = run<float>(spec, uniformOf(FLOAT, 2.0, 6.0));
  const double n = static_cast<double>(kStatN), var = 16.0 / 12.0;
  EXPECT_NEAR(mean(got), 4.0, 5 * std::sqrt(var / n));
  EXPECT_NEAR(variance(got), var, 0.03 * var);
  EXPECT_LT(ksDistance(got, [](double x) { return std::clamp((x - 2.0) / 4.0, 0.0, 1.0); }),
            1.95 / std::sqrt(n));
}

TEST(PoprandNormal, MatchesReferenceAndHasTheRightDistribution) {
  RunSpec spec;
  spec.tiles = 16;
  spec.shape = {kStatN};
  const auto got = run<float>(spec, [](Graph &g, const Tensor *s, const Tensor &r, Sequence &p) {
    return poprand::normal(g, s, 5, r, FLOAT, 1.5, 2.0, p);
  });
  const auto key = keyOf(spec, 5, ref::Stream::Normal);
  for (std::size_t i = 0; i < got.size(); i += 97)
    ASSERT_EQ(got[i], ref::normalSample(ref::elementBlock(key, i), 1.5f, 2.0f)) << i;
  const double n = static_cast<double>(kStatN);
  EXPECT_NEAR(mean(got), 1.5, 5 * 2.0 / std::sqrt(n));
  EXPECT_NEAR(variance(got), 4.0, 0.03 * 4.0);
  EXPECT_LT(ksDistance(got, [](double x) { return phi((x - 1.5) / 2.0); }), 1.95 / std::sqrt(n));
}

TEST(PoprandNormal, HalfIsTheReferenceRoundedToHalf) {
  RunSpec spec;
  spec.shape = {300};
  const auto got = run<half>(spec, [](Graph &g, const Tensor *s, const Tensor &r, Sequence &p) {
    return poprand::normal(g, s, 0, r, HALF, 0.0, 1.0, p);
  });
  const auto key = keyOf(spec, 0, ref::Stream::Normal);
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i].bits, half(ref::normalSample(ref::elementBlock(key, i), 0.0f, 1.0f)).bits);
}

TEST(PoprandTruncatedNormal, StaysInsideTheBoundsAndFollowsTheTruncatedDistribution) {
  RunSpec spec;
  spec.tiles = 16;
  spec.shape = {kStatN};
  spec.layout = Layout::Scrambled;
  const double mu = -1.0, sigma = 0.5, alpha = 1.0;
  const auto got = run<float>(spec, [=](Graph &g, const Tensor *s, const Tensor &r, Sequence &p) {
    return poprand::truncatedNormal(g, s, 2, r, FLOAT, mu, sigma, alpha, p);
  });
  const auto key = keyOf(spec, 2, ref::Stream::TruncatedNormal);
  for (std::size_t i = 0; i < got.size(); i += 89) {
    const float z = ref::truncatedStandardNormal(key, i, ref::elementBlock(key, i), 1.0f);
    ASSERT_EQ(got[i], -1.0f + 0.5f * z) << i;
  }
  for (float x : got) {
    ASSERT_GE(x, mu - alpha * sigma - 1e-6);
    ASSERT_LE(x, mu + alpha * sigma + 1e-6);
  }
  const double lo = phi(-alpha), mass = phi(alpha) - lo;
  const double d = ksDistance(
      got, [&](double x) { return std::clamp((phi((x - mu) / sigma) - lo) / mass, 0.0, 1.0); });
  EXPECT_LT(d, 1.95 / std::sqrt(static_cast<double>(kStatN)));
  // Symmetric about the mean; the exact variance of N(0,1) truncated at +-1 is 0.2911.
  EXPECT_NEAR(mean(got), mu, 5 * sigma * std::sqrt(0.2911 / kStatN));
  EXPECT_NEAR(variance(got), sigma * sigma * 0.29112, 0.03 * sigma * sigma * 0.29112);
}

TEST(PoprandBernoulli, MatchesReferenceAndRate) {
  RunSpec spec;
  spec.tiles = 16;
  spec.shape = {kStatN};
  const double p = 0.3;
  const auto got = run<float>(spec, [=](Graph &g, const Tensor *s, const Tensor &r, Sequence &q) {
    return poprand::bernoulli(g, s, 0, r, FLOAT, p, q);
  });
  const auto key = keyOf(spec, 0, ref::Stream::Bernoulli);
  const auto threshold = ref::probabilityThreshold(p);
  std::size_t ones = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i], ref::fires(ref::elementBlock(key, i)[0], threshold) ? 1.0f : 0.0f) << i;
    ones += got[i] == 1.0f;
  }
  const double n = static_cast<double>(kStatN);
  EXPECT_NEAR(static_cast<double>(ones) / n, p, 5 * std::sqrt(p * (1 - p) / n));
}

TEST(PoprandBernoulli, ProbabilitiesZeroAndOneAreExactForIntAndHalf) {
  RunSpec spec;
  spec.shape = {500};
  const auto zeros = run<int>(spec, [](Graph &g, const Tensor *s, const Tensor &r, Sequence &q) {
    return poprand::bernoulli(g, s, 0, r, INT, 0.0, q);
  });
  EXPECT_EQ(zeros, std::vector<int>(500, 0));
  const auto ones = run<half>(spec, [](Graph &g, const Tensor *s, const Tensor &r, Sequence &q) {
    return poprand::bernoulli(g, s, 0, r, HALF, 1.0, q);
  });
  for (half h : ones)
    ASSERT_EQ(h.bits, half(1.0f).bits);
}

namespace {
/// dropout of an input holding 1 + i/8 at element i, laid out linearly.
Builder dropoutOf(double keep, double scale, unsigned modifier) {
  return [=](Graph &g, const Tensor *s, const Tensor &r, Sequence &p) {
    Tensor in = g.addVariable(FLOAT, r.shape(), "dropoutIn");
    poputil::mapTensorLinearly(g, in, 1, 1);
    std::vector<float> values(in.numElements());
    for (std::size_t i = 0; i < values.size(); ++i)
      values[i] = 1.0f + static_cast<float>(i) / 8.0f;
    g.setInitialValue<float>(in, values);
    return poprand::dropout(g, s, modifier, in, r, keep, scale, p, "drop");
  };
}
} // namespace

TEST(PoprandDropout, KeepsAtTheRateScalesAndMatchesTheReferenceMask) {
  RunSpec spec;
  spec.tiles = 16;
  spec.shape = {256, 256};
  spec.layout = Layout::Transposed;
  const double keep = 0.8, scale = 1.25;
  const auto got = run<float>(spec, dropoutOf(keep, scale, 9));
  const auto key = keyOf(spec, 9, ref::Stream::Dropout);
  const auto threshold = ref::probabilityThreshold(keep);
  std::size_t kept = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const float in = 1.0f + static_cast<float>(i) / 8.0f;
    const bool k = ref::fires(ref::dropoutWord(key, i), threshold);
    ASSERT_EQ(got[i], k ? in * 1.25f : 0.0f) << i;
    kept += k;
  }
  const double n = static_cast<double>(got.size());
  EXPECT_NEAR(static_cast<double>(kept) / n, keep, 5 * std::sqrt(keep * (1 - keep) / n));
}

TEST(PoprandDropout, SameSeedRegeneratesTheMaskOnAnotherLayoutAndModifierChangesIt) {
  RunSpec a;
  a.shape = {40, 30};
  RunSpec b = a;
  b.tiles = 16;
  b.layout = Layout::Scrambled;
  b.hostThreads = 3;
  const auto first = run<float>(a, dropoutOf(0.5, 2.0, 1));
  EXPECT_EQ(bitsOf(run<float>(b, dropoutOf(0.5, 2.0, 1))), bitsOf(first));
  const auto other = run<float>(a, dropoutOf(0.5, 2.0, 2));
  std::size_t differ = 0;
  for (std::size_t i = 0; i < first.size(); ++i)
    differ += (first[i] == 0.0f) != (other[i] == 0.0f);
  EXPECT_GT(differ, first.size() / 4); // independent masks disagree on ~half the elements
}

TEST(PoprandSeedState, SetSeedThenSeedlessCallsFollowTheDocumentedState) {
  // setSeed(master, 3) then two seedless uniforms: the first uses seedStateFromMaster, the
  // second the advanced state. Run twice: setSeed restarts the sequence.
  RunSpec spec;
  spec.shape = {100};
  spec.seedless = true;
  const auto got = run<float>(
      spec,
      [](Graph &g, const Tensor *, const Tensor &r, Sequence &p) {
        Tensor master = g.addConstant<unsigned>(UNSIGNED_INT, {2}, {11u, 22u}, "master");
        g.setTileMapping(master, 1);
        poprand::setSeed(g, master, 3, p);
        Tensor a = poprand::uniform(g, nullptr, 0, r, FLOAT, 0.0, 1.0, p);
        Tensor b = poprand::uniform(g, nullptr, 0, r, FLOAT, 0.0, 1.0, p);
        return concat(a, b, 0);
      },
      2);
  const auto s0 = ref::seedStateFromMaster(11u, 22u, 3u);
  const auto s1 = ref::advancedSeedState(s0[0], s0[1]);
  std::vector<float> want;
  for (const auto &s : {s0, s1}) {
    const ref::StreamKey key{s[0], s[1], 0, ref::Stream::Uniform};
    for (std::size_t i = 0; i < 100; ++i)
      want.push_back(ref::uniformFloat(ref::elementBlock(key, i)[0], 0.0f, 1.0f));
  }
  EXPECT_EQ(bitsOf(got), bitsOf(want));
}

TEST(PoprandSeedState, WithoutSetSeedEachRunDrawsNewNumbersFromTheDefaultState) {
  RunSpec spec;
  spec.shape = {50};
  spec.seedless = true;
  auto build = [](Graph &g, const Tensor *, const Tensor &r, Sequence &p) {
    return poprand::uniform(g, nullptr, 4, r, FLOAT, 0.0, 1.0, p);
  };
  const auto firstRun = run<float>(spec, build, 1);
  const auto secondRun = run<float>(spec, build, 2);
  std::array<std::uint32_t, 2> s{0xAA99330Fu, 0xCC55E1B4u};
  for (const auto *got : {&firstRun, &secondRun}) {
    const ref::StreamKey key{s[0], s[1], 0, ref::Stream::Uniform}; // modifier 4 is ignored
    for (std::size_t i = 0; i < 50; ++i)
      ASSERT_EQ((*got)[i], ref::uniformFloat(ref::elementBlock(key, i)[0], 0.0f, 1.0f)) << i;
    s = ref::advancedSeedState(s[0], s[1]);
  }
}

TEST(PoprandDropout, OutputClonesRefFalseTakesTheInputLayoutWithTheSameMask) {
  IPUModel model;
  model.tilesPerIPU = 4;
  Device device = model.createDevice();
  Graph graph(device.getTarget());
  poprand::addCodelets(graph);
  Tensor seed = graph.addConstant<unsigned>(UNSIGNED_INT, {2}, {5u, 6u}, "seed");
  graph.setTileMapping(seed, 0);
  Tensor reference = graph.addVariable(FLOAT, {10, 10}, "reference");
  poputil::mapTensorLinearly(graph, reference, 1, 1);
  Tensor input = graph.addConstant<float>(FLOAT, {10, 10}, 3.0f, "input");
  graph.setTileMapping(input, 3);
  Sequence prog;
  Tensor likeRef = poprand::dropout(graph, &seed, 1, input, reference, 0.5, 2.0, prog);
  Tensor likeIn = poprand::dropout(graph, &seed, 1, input, reference, 0.5, 2.0, false, prog);
  EXPECT_EQ(graph.getTileMapping(likeIn), graph.getTileMapping(input));
  EXPECT_EQ(graph.getTileMapping(likeRef), graph.getTileMapping(reference));
  graph.createHostRead("a", likeRef);
  graph.createHostRead("b", likeIn);
  Engine engine(graph, prog);
  engine.load(device);
  engine.run();
  std::vector<float> a(100), b(100);
  engine.readTensor("a", a.data(), a.data() + 100);
  engine.readTensor("b", b.data(), b.data() + 100);
  EXPECT_EQ(a, b);
  const ref::StreamKey key{5u, 6u, 1u, ref::Stream::Dropout};
  for (std::size_t i = 0; i < 100; ++i)
    EXPECT_EQ(a[i],
              ref::fires(ref::dropoutWord(key, i), ref::probabilityThreshold(0.5)) ? 6.0f : 0.0f);
}

namespace {
Builder logUniformOf(Type type, double lo, double hi) {
  return [=](Graph &g, const Tensor *seed, const Tensor &r, Sequence &p) {
    return poprand::logUniform(g, seed, 7, r, type, lo, hi, p);
  };
}
} // namespace

TEST(PoprandLogUniform, FloatMatchesReferenceAndItsLogIsUniform) {
  RunSpec spec;
  spec.tiles = 16;
  spec.shape = {kStatN};
  const auto got = run<float>(spec, logUniformOf(FLOAT, 1.0, 1000.0));
  const auto key = keyOf(spec, 7, ref::Stream::LogUniform);
  const float minLog = 0.0f, rangeLog = static_cast<float>(std::log(1000.0));
  std::vector<float> logs(got.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i],
              ref::logUniform<float>(ref::elementBlock(key, i)[0], minLog, rangeLog, 1.0f, 1000.0f))
        << i;
    ASSERT_GE(got[i], 1.0f);
    ASSERT_LE(got[i], 1000.0f);
    logs[i] = std::log(got[i]);
  }
  const double top = std::log(1000.0);
  EXPECT_LT(ksDistance(logs, [&](double x) { return std::clamp(x / top, 0.0, 1.0); }),
            1.95 / std::sqrt(static_cast<double>(kStatN)));
}

TEST(PoprandLogUniform, HalfBoundsAreSqueezedToRepresentableValues) {
  // PopLibs' example: for half, [2049, 4098] becomes [2050, 4096].
  RunSpec spec;
  spec.shape = {2000};
  const auto got = run<half>(spec, logUniformOf(HALF, 2049.0, 4098.0));
  const auto key = keyOf(spec, 7, ref::Stream::LogUniform);
  const float minLog = static_cast<float>(std::log(2049.0));
  const float rangeLog = static_cast<float>(std::log(4098.0) - std::log(2049.0));
  bool sawLower = false, sawUpper = false;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const float x = static_cast<float>(got[i]);
    ASSERT_GE(x, 2050.0f);
    ASSERT_LE(x, 4096.0f);
    sawLower |= x == 2050.0f;
    sawUpper |= x == 4096.0f;
    ASSERT_EQ(got[i].bits, ref::logUniform<half>(ref::elementBlock(key, i)[0], minLog, rangeLog,
                                                 2050.0f, 4096.0f)
                               .bits)
        << i;
  }
  EXPECT_TRUE(sawLower);
  EXPECT_TRUE(sawUpper);
}

TEST(PoprandLogUniform, IntIsRoundedAndClampedToTheIntegersInside) {
  RunSpec spec;
  spec.shape = {3000};
  const auto got = run<int>(spec, logUniformOf(INT, 1.5, 10.5));
  const auto key = keyOf(spec, 7, ref::Stream::LogUniform);
  const float minLog = static_cast<float>(std::log(1.5));
  const float rangeLog = static_cast<float>(std::log(10.5) - std::log(1.5));
  std::vector<int> counts(11, 0);
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_GE(got[i], 2);
    ASSERT_LE(got[i], 10);
    ASSERT_EQ(got[i],
              ref::logUniform<int>(ref::elementBlock(key, i)[0], minLog, rangeLog, 2.0f, 10.0f));
    ++counts[got[i]];
  }
  EXPECT_GT(counts[2], counts[9]); // log-uniform favours small values
}

namespace {
/// Runs shapedDropout of an input [6, 50] holding 1 + i/8 (mapped linearly over 4 tiles) with a
/// reference of `refShape` (mapped linearly), returning the output.
template <class T> std::vector<T> runShapedDropout(const std::vector<std::size_t> &refShape) {
  IPUModel model;
  model.tilesPerIPU = 4;
  Device device = model.createDevice();
  Graph graph(device.getTarget());
  poprand::addCodelets(graph);
  Tensor seed = graph.addConstant<unsigned>(UNSIGNED_INT, {2}, {8u, 9u}, "seed");
  graph.setTileMapping(seed, 2);
  Tensor in = graph.addVariable(equivalent_device_type<T>::value, {6, 50}, "in");
  poputil::mapTensorLinearly(graph, in, 1, 1);
  std::vector<T> values(300);
  for (std::size_t i = 0; i < 300; ++i)
    values[i] = T(1.0f + static_cast<float>(i) / 8.0f);
  graph.setInitialValue<T>(in, values);
  Tensor reference = graph.addVariable(FLOAT, refShape, "ref");
  poputil::mapTensorLinearly(graph, reference, 1, 1);
  Sequence prog;
  Tensor out = poprand::shapedDropout(graph, &seed, 3, in, reference, 0.5, 2.0, prog);
  EXPECT_EQ(graph.getTileMapping(out), graph.getTileMapping(in));
  graph.createHostRead("out", out);
  Engine engine(graph, prog);
  engine.load(device);
  engine.run();
  std::vector<T> got(300);
  engine.readTensor("out", got.data(), got.data() + 300);
  return got;
}
} // namespace

TEST(PoprandShapedDropout, RowMaskKeepsOrDropsWholeRowsAsTheReferenceMaskSays) {
  const auto got = runShapedDropout<float>({6, 1});
  const ref::StreamKey key{8u, 9u, 3u, ref::Stream::Dropout};
  const auto threshold = ref::probabilityThreshold(0.5);
  for (std::size_t r = 0; r < 6; ++r) {
    const bool keep = ref::fires(ref::dropoutWord(key, r), threshold);
    for (std::size_t c = 0; c < 50; ++c) {
      const float in = 1.0f + static_cast<float>(r * 50 + c) / 8.0f;
      ASSERT_EQ(got[r * 50 + c], keep ? in * 2.0f : 0.0f) << r << "," << c;
    }
  }
}

TEST(PoprandShapedDropout, TrailingColumnMaskBroadcastsOverRowsInHalf) {
  const auto got = runShapedDropout<half>({50});
  const ref::StreamKey key{8u, 9u, 3u, ref::Stream::Dropout};
  const auto threshold = ref::probabilityThreshold(0.5);
  for (std::size_t r = 0; r < 6; ++r)
    for (std::size_t c = 0; c < 50; ++c) {
      const bool keep = ref::fires(ref::dropoutWord(key, c), threshold);
      const half in(1.0f + static_cast<float>(r * 50 + c) / 8.0f);
      ASSERT_EQ(got[r * 50 + c].bits, keep ? half(float(in) * 2.0f).bits : half(0.0f).bits)
          << r << "," << c;
    }
}

TEST(PoprandDropoutKernel, FloatMatchesTheReferenceForAnyOffsetLengthAndRate) {
  // Offsets inside a block, lengths around the vector widths, the block counter's low word
  // wrapping inside the run (element 2^34), and the rates that never and always keep.
  const auto kernel = ref::dropoutFloatKernel();
  const ref::StreamKey key{0x12345678u, 0x9abcdef0u, 5u, ref::Stream::Dropout};
  for (unsigned long long threshold :
       {0ull, ref::probabilityThreshold(0.9), ref::probabilityThreshold(0.5), 4294967296ull})
    for (std::uint64_t first : {0ull, 1ull, 3ull, 6ull, (1ull << 34) - 37ull})
      for (std::size_t n : {0u, 1u, 5u, 16u, 63u, 64u, 65u, 200u}) {
        std::vector<float> in(n + 1), got(n + 1, -7.0f);
        for (std::size_t k = 0; k < n; ++k)
          in[k] = 0.5f + static_cast<float>(k) * 0.25f;
        kernel(key, first, n, in.data(), got.data(), threshold, 1.5f);
        for (std::size_t k = 0; k < n; ++k) {
          const bool keep = ref::fires(ref::dropoutWord(key, first + k), threshold);
          ASSERT_EQ(got[k], keep ? in[k] * 1.5f : 0.0f)
              << "threshold " << threshold << " first " << first << " k " << k;
        }
        EXPECT_EQ(got[n], -7.0f) << "wrote past the end";
      }
}
