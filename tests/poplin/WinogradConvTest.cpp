// 3x3 stride-1 convolutions computed by Winograd's F(2x2, 3x3) (poplin/src/ConvWinograd.hpp;
// forced with the option useWinograd=true, as these small shapes would otherwise stay on the
// convolution blocks): all three passes against the naive double reference over odd and even
// fields, padding 0 to 2 and asymmetric padding, groups, kernel flips, user layouts and
// products split over many tiles; the weight update's scaled add; bit-identical results for
// any host thread count; which convolutions get the method, and the option's errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ConvTestSupport.hpp"

using namespace poplin::testing;
using poplar::FLOAT;
using poplar::HALF;
using poplin::ConvParams;

namespace {

const poplar::OptionFlags kWinograd{{"useWinograd", "true"}};

ConvParams conv3x3(std::size_t batch, std::size_t h, std::size_t w, std::size_t ic, std::size_t oc,
                   unsigned pad = 1, std::size_t groups = 1) {
  ConvParams p(FLOAT, batch, {h, w}, {3, 3}, ic / groups, oc / groups, groups);
  p.inputTransform.paddingLower = p.inputTransform.paddingUpper = {pad, pad};
  return p;
}

std::string planOf(const ConvParams &p, bool weightUpdate,
                   const poplar::OptionFlags &options = kWinograd, unsigned tiles = 8) {
  return planReport(p, weightUpdate, options, tiles);
}

bool isWinograd(const std::string &plan) { return plan.find("winograd") != std::string::npos; }

ConvRun withWinograd(ConvRun run = {}) {
  run.options = kWinograd;
  return run;
}

/// Forward, input gradient and weight gradient of `p` against the reference.
void checkAllPasses(const ConvParams &p, const ConvRun &given = {}, double tol = 1e-5) {
  const ConvRun run = withWinograd(given);
  const std::string what = describe(p);
  ASSERT_TRUE(isWinograd(planOf(p, false, run.options, run.tiles))) << what;
  ASSERT_TRUE(isWinograd(planOf(p, true, run.options, run.tiles))) << what;
  ASSERT_TRUE(isWinograd(planOf(poplin::getGradientParams(p), false, run.options, run.tiles)))
      << what;
  expectAllPassesMatch(p, run, tol);
}

TEST(Winograd, OnlyDenseThreeByThreeStrideOneConvolutionsUseIt) {
  EXPECT_TRUE(isWinograd(planOf(conv3x3(2, 6, 6, 4, 4), false)));
  EXPECT_TRUE(isWinograd(planOf(conv3x3(2, 6, 6, 4, 4), true)));
  // Input gradients pad by 2 and truncate the padding back off.
  for (unsigned pad : {0u, 1u, 2u})
    EXPECT_TRUE(isWinograd(planOf(poplin::getGradientParams(conv3x3(2, 6, 6, 4, 4, pad)), false)));
  ConvParams truncated = conv3x3(2, 6, 6, 4, 4, 0);
  truncated.outputTransform.truncationLower = {1, 0}; // more than the padding: not a padding
  EXPECT_FALSE(isWinograd(planOf(truncated, false)));
  ConvParams strided = conv3x3(2, 6, 6, 4, 4);
  strided.outputTransform.stride = {2, 2};
  EXPECT_FALSE(isWinograd(planOf(strided, false)));
  EXPECT_FALSE(isWinograd(planOf(poplin::getGradientParams(strided), false)));
  ConvParams dilated = conv3x3(2, 8, 8, 4, 4);
  dilated.kernelTransform.dilation = {2, 2};
  EXPECT_FALSE(isWinograd(planOf(dilated, false)));
  ConvParams five(FLOAT, 2, {6, 6}, {5, 5}, 4, 4, 1);
  EXPECT_FALSE(isWinograd(planOf(five, false)));
  ConvParams half = conv3x3(2, 6, 6, 4, 4);
  half.inputType = half.outputType = HALF;
  EXPECT_FALSE(isWinograd(planOf(half, false)));
  ConvParams oneD(FLOAT, 2, {9}, {3}, 4, 4, 1);
  EXPECT_FALSE(isWinograd(planOf(oneD, false)));
}

TEST(Winograd, AutoChoosesItForWideChannelsOnly) {
  const poplar::OptionFlags automatic{{"useWinograd", "auto"}}, never{{"useWinograd", "false"}};
  // A handful of channels: the blocks are cheaper.
  EXPECT_FALSE(isWinograd(planOf(conv3x3(2, 6, 6, 4, 4), false, automatic)));
  // ResNet's stem and its input gradient (3 output channels).
  const ConvParams stem = conv3x3(32, 32, 32, 3, 64);
  EXPECT_FALSE(isWinograd(planOf(stem, false, {}, 1472)));
  EXPECT_FALSE(isWinograd(planOf(poplin::getGradientParams(stem), false, {}, 1472)));
  EXPECT_FALSE(isWinograd(planOf(stem, true, {}, 1472)));
  // ResNet-50's stage 4 3x3 at a 32 x 32 input: every pass is Winograd's.
  const ConvParams wide = conv3x3(32, 4, 4, 512, 512);
  EXPECT_TRUE(isWinograd(planOf(wide, false, automatic, 1472)));
  EXPECT_TRUE(isWinograd(planOf(wide, true, automatic, 1472)));
  EXPECT_TRUE(isWinograd(planOf(poplin::getGradientParams(wide), false, {}, 1472)));
  EXPECT_FALSE(isWinograd(planOf(wide, false, never, 1472)));
}

TEST(Winograd, BadOptionValueIsRejectedNamingTheOption) {
  try {
    planOf(conv3x3(2, 6, 6, 4, 4), false, {{"useWinograd", "maybe"}});
    FAIL() << "expected poplar::invalid_option";
  } catch (const poplar::invalid_option &e) {
    EXPECT_NE(std::string(e.what()).find("useWinograd"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("maybe"), std::string::npos) << e.what();
  }
  try {
    planOf(conv3x3(2, 6, 6, 4, 4), false, {{"useWinogard", "true"}});
    FAIL() << "expected poplar::invalid_option";
  } catch (const poplar::invalid_option &e) {
    EXPECT_NE(std::string(e.what()).find("useWinograd"), std::string::npos) << e.what();
  }
}

TEST(Winograd, EveryPassMatchesReferenceOnEvenAndOddFields) {
  checkAllPasses(conv3x3(2, 6, 6, 5, 7));
  checkAllPasses(conv3x3(3, 7, 5, 4, 6)); // odd output: the last tile row and column are clipped
  checkAllPasses(conv3x3(1, 1, 4, 3, 2)); // one input row: only padding above and below it
}

TEST(Winograd, EveryPaddingMatchesReference) {
  checkAllPasses(conv3x3(2, 6, 7, 4, 5, 0)); // valid: its input gradient pads by 2
  checkAllPasses(conv3x3(2, 5, 6, 4, 5, 2));
  ConvParams lopsided = conv3x3(2, 6, 5, 4, 3);
  lopsided.inputTransform.paddingLower = {1, 0};
  lopsided.inputTransform.paddingUpper = {0, 2};
  checkAllPasses(lopsided);
}

TEST(Winograd, GroupsAndDepthwiseAreGroupedProducts) {
  checkAllPasses(conv3x3(2, 6, 6, 12, 9, 1, 3));
  checkAllPasses(conv3x3(2, 5, 5, 4, 4, 1, 4));
}

TEST(Winograd, FlippedKernelsMatchReference) {
  ConvParams p = conv3x3(2, 6, 5, 4, 6);
  p.kernelTransform.flip = {true, false};
  checkAllPasses(p);
  p.kernelTransform.flip = {true, true};
  checkAllPasses(p);
}

TEST(Winograd, UserLayoutsAndProductsOverManyTiles) {
  ConvRun user;
  user.create = false; // linearly mapped [B][C][H][W] tensors
  user.tiles = 3;
  checkAllPasses(conv3x3(2, 6, 6, 6, 8, 1, 2), user);
  // Enough channels and positions that the products split their inner dimensions (partials).
  ConvRun many;
  many.tiles = 64;
  checkAllPasses(conv3x3(8, 12, 12, 64, 48), many, 1e-4);
}

TEST(Winograd, WeightUpdateAddsScaledDeltas) {
  const ConvParams p = conv3x3(4, 6, 6, 8, 12);
  expectWeightUpdateMatches(p, withWinograd(), 1e-5);
}

TEST(Winograd, BitIdenticalForOneAndTwoHostThreads) {
  const ConvParams p = conv3x3(8, 10, 10, 32, 24);
  ConvRun run = withWinograd();
  run.tiles = 32;
  expectBitIdenticalForOneAndTwoThreads(p, run);
}

} // namespace
