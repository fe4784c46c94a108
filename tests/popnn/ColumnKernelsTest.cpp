// popnn's per-column kernels (γ·x + β along a row; column sums of x and x·y): bit-identical to
// their scalar references for lengths around every vector width, with and without the optional
// operand, accumulating onto earlier sums.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "popnn/kernels/ColumnKernels.hpp"

using namespace tessera::codelets::popnn;

namespace {

std::vector<float> randomFloats(std::size_t n, std::mt19937 &gen) {
  std::uniform_real_distribution<float> dist(-3, 3);
  std::vector<float> v(n);
  for (auto &x : v)
    x = dist(gen);
  return v;
}

TEST(ColumnKernels, AffineBitIdenticalToReference) {
  std::mt19937 gen(81);
  for (std::size_t n : {0, 1, 3, 4, 7, 8, 15, 16, 17, 33, 100, 257}) {
    const auto x = randomFloats(n, gen), gamma = randomFloats(n, gen), beta = randomFloats(n, gen);
    for (bool withBeta : {false, true}) {
      std::vector<float> got(n), want(n);
      const float *b = withBeta ? beta.data() : nullptr;
      columnAffineKernel()(x.data(), gamma.data(), b, got.data(), n);
      columnAffineReference(x.data(), gamma.data(), b, want.data(), n);
      EXPECT_EQ(got, want) << "n " << n << (withBeta ? " with beta" : "");
    }
  }
}

TEST(ColumnKernels, SumsBitIdenticalToReference) {
  std::mt19937 gen(82);
  for (std::size_t n : {0, 1, 3, 4, 7, 8, 15, 16, 17, 33, 100, 257}) {
    const auto x = randomFloats(n, gen), y = randomFloats(n, gen), start = randomFloats(n, gen);
    for (bool withY : {false, true}) {
      std::vector<float> gotX = start, gotXY = start, wantX = start, wantXY = start;
      float *gxy = withY ? gotXY.data() : nullptr, *wxy = withY ? wantXY.data() : nullptr;
      columnSumsKernel()(x.data(), y.data(), n, gotX.data(), gxy);
      columnSumsReference(x.data(), y.data(), n, wantX.data(), wxy);
      EXPECT_EQ(gotX, wantX) << "sums, n " << n;
      EXPECT_EQ(gotXY, wantXY) << "product sums, n " << n;
    }
  }
}

} // namespace
