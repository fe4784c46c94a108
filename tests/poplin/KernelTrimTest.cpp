// Kernels wider than the real input (a 5x5 kernel over a 1x1 or 2x2 field with padding 2, as
// late in EfficientNet): poplin drops the taps that only ever meet padding. Every pass must
// still match the naive reference on the full kernel, and the dropped taps' weight gradient must
// be exactly zero while convolutionWeightUpdate leaves their weights untouched.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ConvTestSupport.hpp"

using namespace poplin::testing;
using poplar::FLOAT;
using poplin::ConvParams;

namespace {

struct TrimCase {
  const char *name;
  std::size_t batch, inChansPerGroup, outChansPerGroup, groups, field, kernel;
  unsigned padding, stride;
};

ConvParams paramsOf(const TrimCase &c) {
  ConvParams p(FLOAT, c.batch, {c.field, c.field}, {c.kernel, c.kernel}, c.inChansPerGroup,
               c.outChansPerGroup, c.groups);
  p.inputTransform.paddingLower = p.inputTransform.paddingUpper = {c.padding, c.padding};
  p.outputTransform.stride = {c.stride, c.stride};
  return p;
}

class KernelTrim : public ::testing::TestWithParam<std::tuple<TrimCase, bool /*create*/>> {
protected:
  ConvParams params() const { return paramsOf(std::get<0>(GetParam())); }
  ConvRun run() const {
    ConvRun r;
    if (!std::get<1>(GetParam())) {
      r.create = false;
      r.tiles = 1;
    }
    return r;
  }
};

TEST_P(KernelTrim, EveryPassMatchesTheFullKernelReference) {
  expectAllPassesMatch(params(), run(), 1e-5);
}

TEST_P(KernelTrim, WeightUpdateMatchesTheReference) {
  expectWeightUpdateMatches(params(), run(), 1e-5);
}

const TrimCase kCases[] = {
    // Depthwise 5x5 over 1x1 (only the centre tap), over 2x2 (the middle 3x3), and stride 2
    // from 2x2 to 1x1 (the middle 2x2).
    {"depthwise5x5Field1", 3, 1, 1, 6, 1, 5, 2, 1},
    {"depthwise5x5Field2", 2, 1, 1, 5, 2, 5, 2, 1},
    {"depthwise5x5Field2Stride2", 2, 1, 1, 4, 2, 5, 2, 2},
    // Dense channels: a 3x3 kernel over a 1x1 field, and a 7x7 over 3x3 with padding 3.
    {"dense3x3Field1", 2, 4, 6, 1, 1, 3, 1, 1},
    {"grouped5x5Field1", 2, 2, 3, 2, 1, 5, 2, 1},
    {"dense7x7Field3", 2, 3, 5, 1, 3, 7, 3, 1},
};

INSTANTIATE_TEST_SUITE_P(Sweep, KernelTrim,
                         ::testing::Combine(::testing::ValuesIn(kCases), ::testing::Bool()),
                         [](const auto &info) {
                           return std::string(std::get<0>(info.param).name) +
                                  (std::get<1>(info.param) ? "Created" : "UserLayoutOneTile");
                         });

TEST(KernelTrimTaps, DroppedTapsHaveExactlyZeroGradient) {
  // 5x5 over 1x1: all but tap (2, 2) of every kernel meet only padding.
  const ConvParams p = paramsOf({"t", 4, 1, 1, 3, 1, 5, 2, 1});
  const auto in = randomValues(inputElements(p), 21), dOut = randomValues(outputElements(p), 22);
  const auto dW = runWeightGrad(p, dOut, in, WeightGradMode::DELTAS);
  ASSERT_EQ(dW.size(), 3u * 25u);
  for (std::size_t i = 0; i < dW.size(); ++i)
    if (i % 25 != 12) {
      EXPECT_EQ(dW[i], 0.0f) << "tap " << i % 25 << " of group " << i / 25;
    }
}

TEST(KernelTrimTaps, WeightUpdateLeavesDroppedTapsUntouched) {
  const ConvParams p = paramsOf({"t", 4, 1, 1, 3, 1, 5, 2, 1});
  const auto in = randomValues(inputElements(p), 23), dOut = randomValues(outputElements(p), 24);
  const auto w0 = randomValues(weightElements(p), 25);
  for (auto mode : {WeightGradMode::UPDATE_FLOAT_SCALE, WeightGradMode::UPDATE_TENSOR_SCALE}) {
    const auto w = runWeightGrad(p, dOut, in, mode, w0, -0.5f);
    for (std::size_t i = 0; i < w.size(); ++i)
      if (i % 25 != 12) {
        EXPECT_EQ(w[i], w0[i]) << "tap " << i % 25 << " of group " << i / 25;
      }
  }
}

TEST(KernelTrimTaps, BitIdenticalForOneAndTwoHostThreads) {
  ConvRun run;
  run.tiles = 16;
  expectBitIdenticalForOneAndTwoThreads(paramsOf({"t", 8, 1, 1, 16, 2, 5, 2, 1}), run);
}

} // namespace
