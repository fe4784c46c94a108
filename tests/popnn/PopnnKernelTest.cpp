// popnn's Highway kernels against their scalar references. Softmax row: lengths around the
// vector width, softmax / scaled / log forms, huge and equal inputs, in place; tolerance 2e-6 abs
// + 2e-6 rel (Highway's exp differs from std::exp by a few ulp). Row affine: bit-identical (no
// FMA), with and without the second operand, in place.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "popnn/kernels/RowAffineKernels.hpp"
#include "popnn/kernels/SoftmaxKernels.hpp"

using tessera::codelets::popnn::rowAffineKernel;
using tessera::codelets::popnn::rowAffineReference;
using tessera::codelets::popnn::softmaxRowKernel;
using tessera::codelets::popnn::softmaxRowReference;

namespace {

void check(const std::vector<float> &in, float scale, bool log) {
  std::vector<float> got(in.size()), want(in.size()), inPlace = in;
  softmaxRowKernel()(in.data(), got.data(), in.size(), scale, log);
  softmaxRowReference(in.data(), want.data(), in.size(), scale, log);
  softmaxRowKernel()(inPlace.data(), inPlace.data(), in.size(), scale, log);
  for (std::size_t i = 0; i < in.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], 2e-6 * scale + 2e-6 * std::abs(want[i]))
        << "n " << in.size() << " element " << i << (log ? " log" : "");
    ASSERT_EQ(got[i], inPlace[i]) << "in place differs, element " << i;
  }
}

TEST(SoftmaxKernel, MatchesReferenceForEveryLengthAndForm) {
  std::mt19937 gen(5);
  std::uniform_real_distribution<float> dist(-8, 8);
  for (std::size_t n : {1, 2, 3, 7, 8, 15, 16, 17, 31, 33, 64, 100, 1000}) {
    std::vector<float> row(n);
    for (auto &x : row)
      x = dist(gen);
    check(row, 1.0f, false);
    check(row, 62000.0f, false);
    check(row, 1.0f, true);
  }
}

TEST(SoftmaxKernel, StableForHugeAndEqualInputs) {
  check(std::vector<float>(37, 88.0f), 1.0f, false);
  std::vector<float> huge(20);
  for (std::size_t i = 0; i < huge.size(); ++i)
    huge[i] = 1e4f + static_cast<float>(i);
  check(huge, 1.0f, false);
  check(huge, 1.0f, true);
}

TEST(RowAffineKernel, BitIdenticalToReference) {
  std::mt19937 gen(6);
  std::uniform_real_distribution<float> dist(-4, 4);
  for (std::size_t n : {1, 5, 8, 16, 19, 64, 333}) {
    std::vector<float> x(n), y(n);
    for (std::size_t i = 0; i < n; ++i)
      x[i] = dist(gen), y[i] = dist(gen);
    for (bool withY : {false, true}) {
      std::vector<float> got(n), want(n), inPlace = x;
      const float *yp = withY ? y.data() : nullptr;
      rowAffineKernel()(x.data(), yp, got.data(), n, 1.5f, -0.25f, 0.125f);
      rowAffineReference(x.data(), yp, want.data(), n, 1.5f, -0.25f, 0.125f);
      rowAffineKernel()(inPlace.data(), yp, inPlace.data(), n, 1.5f, -0.25f, 0.125f);
      EXPECT_EQ(got, want) << "n " << n << (withY ? " with y" : "");
      EXPECT_EQ(inPlace, want) << "in place, n " << n;
    }
  }
}

} // namespace
