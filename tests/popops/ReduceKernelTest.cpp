// The Highway reduction kernels against their scalar references.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "popops/kernels/ReduceKernels.hpp"

namespace cp = tessera::codelets::popops;

namespace {
std::vector<float> randomFloats(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (auto &x : v)
    x = u(gen);
  return v;
}
} // namespace

TEST(ReduceKernel, RunSumsMatchReferenceWithinRoundingForOddSizes) {
  const auto sum = cp::sumFloatKernel();
  const auto squares = cp::sumSquaresFloatKernel();
  for (std::size_t n :
       {0u, 1u, 3u, 7u, 15u, 16u, 17u, 63u, 64u, 65u, 2047u, 2048u, 2049u, 10001u}) {
    const auto x = randomFloats(n + 1, static_cast<unsigned>(n));
    double exact = 0, exactSq = 0, mag = 0;
    for (std::size_t i = 1; i <= n; ++i) {
      exact += x[i];
      exactSq += static_cast<double>(x[i]) * x[i];
      mag += std::abs(x[i]);
    }
    const double bound = 1e-6 * (mag + exactSq) + 1e-7;
    // Offset by one element: unaligned input.
    EXPECT_NEAR(sum(x.data() + 1, n), exact, bound) << n;
    EXPECT_NEAR(cp::sumFloatReference(x.data() + 1, n), exact, 1e-5 * mag + 1e-7) << n;
    EXPECT_NEAR(squares(x.data() + 1, n), exactSq, bound) << n;
    EXPECT_NEAR(cp::sumSquaresFloatReference(x.data() + 1, n), exactSq, 1e-5 * exactSq + 1e-7);
  }
}

TEST(ReduceKernel, RowAccumulationMatchesReferenceBitForBit) {
  const auto addRows = cp::addRowsFloatKernel();
  const auto squareRows = cp::squareAddRowsFloatKernel();
  for (std::size_t width : {1u, 3u, 8u, 17u, 40u})
    for (std::size_t rows : {0u, 1u, 5u}) {
      const auto x = randomFloats(width * rows, 3);
      std::vector<float> got(width, 0.5f), want(width, 0.5f);
      addRows(got.data(), x.data(), width, rows);
      cp::addRowsFloatReference(want.data(), x.data(), width, rows);
      EXPECT_EQ(got, want) << width << "x" << rows;
      std::vector<float> gotSq(width, 0.5f), wantSq(width, 0.5f);
      squareRows(gotSq.data(), x.data(), width, rows);
      cp::squareAddRowsFloatReference(wantSq.data(), x.data(), width, rows);
      for (std::size_t w = 0; w < width; ++w) // equal when the target fuses multiply-add
        EXPECT_NEAR(gotSq[w], wantSq[w], 1e-6f * (1.0f + std::abs(wantSq[w])));
    }
}

TEST(ReduceKernel, HalfToFloatMatchesReferenceIncludingSpecials) {
  const auto widen = cp::halfToFloatKernel();
  std::vector<std::uint16_t> bits;
  for (std::uint32_t b = 0; b < 0x10000u; b += 7) // every exponent, both signs, odd count
    bits.push_back(static_cast<std::uint16_t>(b));
  for (std::uint16_t special : {0x7C00, 0xFC00, 0x7E00, 0x0001, 0x8000, 0x03FF})
    bits.push_back(special);
  std::vector<float> got(bits.size()), want(bits.size());
  widen(bits.data(), got.data(), bits.size());
  cp::halfToFloatReference(bits.data(), want.data(), bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) {
    if (std::isnan(want[i]))
      EXPECT_TRUE(std::isnan(got[i])) << std::hex << bits[i];
    else
      EXPECT_EQ(got[i], want[i]) << std::hex << bits[i];
  }
}

TEST(ReduceKernel, EveryCompiledTargetMatchesTheReferences) {
  const auto sets = cp::reduceKernelsForEveryTarget();
  ASSERT_FALSE(sets.empty());
  const auto x = randomFloats(4099, 11);
  double exact = 0, mag = 0;
  for (float v : x) {
    exact += v;
    mag += std::abs(v);
  }
  std::vector<std::uint16_t> bits;
  for (std::uint32_t b = 0; b < 0x10000u; b += 5)
    bits.push_back(static_cast<std::uint16_t>(b));
  std::vector<float> want(bits.size());
  cp::halfToFloatReference(bits.data(), want.data(), bits.size());
  for (const auto &k : sets) {
    SCOPED_TRACE(k.target);
    EXPECT_NEAR(k.sum(x.data(), x.size()), exact, 1e-6 * mag);
    std::vector<float> acc(41, 0.25f), ref(41, 0.25f);
    k.addRows(acc.data(), x.data(), 41, 99);
    cp::addRowsFloatReference(ref.data(), x.data(), 41, 99);
    EXPECT_EQ(acc, ref);
    std::vector<float> got(bits.size());
    k.halfToFloat(bits.data(), got.data(), bits.size());
    for (std::size_t i = 0; i < bits.size(); ++i) {
      if (std::isnan(want[i]))
        EXPECT_TRUE(std::isnan(got[i])) << std::hex << bits[i];
      else
        EXPECT_EQ(got[i], want[i]) << std::hex << bits[i];
    }
  }
}
