// Convolutions lowered to one matrix product (poplin/src/ConvLowered.hpp; forced with the option
// im2colMatMul=true, as these small shapes would otherwise stay on the convolution blocks):
// im2col for forward passes and weight gradients, col2im for input-dilated convolutions (the
// input gradients of strided ones). All three passes against the naive double reference over
// strides, kernel shapes, padding, kernel dilation and flips, groups, user layouts and products
// split over many tiles; the weight update's scaled add; bit-identical results for any host
// thread count; which convolutions "auto" lowers, and the option's errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ConvTestSupport.hpp"

using namespace poplin::testing;
using poplar::FLOAT;
using poplar::HALF;
using poplin::ConvParams;

namespace {

const poplar::OptionFlags kLowered{{"im2colMatMul", "true"}, {"useWinograd", "false"}};

ConvParams conv2d(std::size_t batch, std::size_t h, std::size_t w, std::size_t ic, std::size_t oc,
                  std::vector<std::size_t> kernel, std::vector<unsigned> stride, unsigned pad = 1,
                  std::size_t groups = 1) {
  ConvParams p(FLOAT, batch, {h, w}, std::move(kernel), ic / groups, oc / groups, groups);
  p.inputTransform.paddingLower = p.inputTransform.paddingUpper = {pad, pad};
  p.outputTransform.stride = std::move(stride);
  return p;
}

std::string planOf(const ConvParams &p, bool weightUpdate,
                   const poplar::OptionFlags &options = kLowered, unsigned tiles = 8) {
  return planReport(p, weightUpdate, options, tiles);
}

bool has(const std::string &plan, const char *method) {
  return plan.find(method) != std::string::npos;
}

ConvRun lowered(ConvRun run = {}) {
  run.options = kLowered;
  return run;
}

/// Forward, input gradient and weight gradient of `p` against the reference.
void checkAllPasses(const ConvParams &p, const ConvRun &given = {}, double tol = 1e-5) {
  const ConvRun run = lowered(given);
  const std::string what = describe(p);
  const ConvParams bwd = poplin::getGradientParams(p);
  const bool dilated = bwd.inputTransform.dilation[0] > 1 || bwd.inputTransform.dilation[1] > 1;
  ASSERT_TRUE(has(planOf(p, false, run.options, run.tiles), "im2col")) << what;
  ASSERT_TRUE(has(planOf(p, true, run.options, run.tiles), "im2col")) << what;
  ASSERT_TRUE(has(planOf(bwd, false, run.options, run.tiles), dilated ? "col2im" : "im2col"))
      << what;
  expectAllPassesMatch(p, run, tol);
}

TEST(Lowered, StridedConvolutionsAndTheirInputGradientsMatchReference) {
  checkAllPasses(conv2d(2, 8, 8, 5, 7, {3, 3}, {2, 2}));
  checkAllPasses(conv2d(3, 9, 7, 4, 6, {3, 3}, {2, 2})); // odd fields: the last row is skipped
  checkAllPasses(conv2d(2, 11, 10, 3, 4, {5, 3}, {3, 2}, 2));
}

TEST(Lowered, PaddingDilationAndFlipsMatchReference) {
  ConvParams lopsided = conv2d(2, 8, 7, 4, 3, {3, 3}, {2, 2});
  lopsided.inputTransform.paddingLower = {0, 2};
  lopsided.inputTransform.paddingUpper = {1, 0};
  checkAllPasses(lopsided);
  ConvParams dilatedKernel = conv2d(2, 10, 10, 3, 5, {3, 3}, {2, 1}, 2);
  dilatedKernel.kernelTransform.dilation = {2, 2};
  checkAllPasses(dilatedKernel);
  ConvParams flipped = conv2d(2, 8, 8, 4, 6, {3, 2}, {2, 2});
  flipped.kernelTransform.flip = {true, false};
  checkAllPasses(flipped);
  checkAllPasses(conv2d(2, 6, 6, 4, 5, {3, 3}, {1, 1})); // stride 1, forced
}

TEST(Lowered, GroupsUserLayoutsAndManyTiles) {
  checkAllPasses(conv2d(2, 8, 8, 12, 9, {3, 3}, {2, 2}, 1, 3));
  ConvRun user;
  user.create = false; // linearly mapped [B][C][H][W] tensors
  user.tiles = 3;
  checkAllPasses(conv2d(2, 8, 8, 6, 8, {3, 3}, {2, 2}, 1, 2), user);
  // Enough channels and positions that the products split their inner dimensions (partials).
  ConvRun many;
  many.tiles = 64;
  checkAllPasses(conv2d(8, 16, 16, 48, 40, {3, 3}, {2, 2}), many, 1e-4);
}

TEST(Lowered, WeightUpdateAddsScaledDeltas) {
  const ConvParams p = conv2d(4, 8, 8, 8, 12, {3, 3}, {2, 2});
  expectWeightUpdateMatches(p, lowered(), 1e-5);
}

TEST(Lowered, BitIdenticalForOneAndTwoHostThreads) {
  const ConvParams p = conv2d(8, 12, 12, 32, 24, {3, 3}, {2, 2});
  ConvRun run = lowered();
  run.tiles = 32;
  expectBitIdenticalForOneAndTwoThreads(p, run);
}

TEST(Lowered, OnlyTwoDimensionalFloatConvolutionsWithAKernelAreLowered) {
  ConvParams half = conv2d(2, 8, 8, 4, 4, {3, 3}, {2, 2});
  half.inputType = half.outputType = HALF;
  EXPECT_FALSE(has(planOf(half, false), "im2col"));
  ConvParams oneD(FLOAT, 2, {9}, {3}, 4, 4, 1);
  oneD.outputTransform.stride = {2};
  EXPECT_FALSE(has(planOf(oneD, false), "im2col"));
  // A 1x1 kernel is pointwise's, or the blocks'.
  EXPECT_FALSE(has(planOf(conv2d(2, 8, 8, 4, 4, {1, 1}, {2, 2}, 0), false), "im2col"));
}

TEST(Lowered, AutoLowersWideStridedLayersAndTheirGradients) {
  const poplar::OptionFlags automatic{{"im2colMatMul", "auto"}}, never{{"im2colMatMul", "false"}};
  // ResNet-50's stage 4 strided 3x3 at a 32 x 32 input.
  const ConvParams wide = conv2d(32, 8, 8, 512, 512, {3, 3}, {2, 2});
  EXPECT_TRUE(has(planOf(wide, false, automatic, 1472), "im2col"));
  EXPECT_TRUE(has(planOf(wide, true, {}, 1472), "im2col"));
  EXPECT_TRUE(has(planOf(poplin::getGradientParams(wide), false, {}, 1472), "col2im"));
  EXPECT_FALSE(has(planOf(wide, false, never, 1472), "im2col"));
  // Stage 2's strided 3x3 (a 16 x 16 output field) is faster on the blocks.
  const ConvParams stage2 = conv2d(32, 32, 32, 128, 128, {3, 3}, {2, 2});
  EXPECT_FALSE(has(planOf(stage2, false, {}, 1472), "im2col"));
  EXPECT_FALSE(has(planOf(poplin::getGradientParams(stage2), false, {}, 1472), "col2im"));
  // Narrow channels and stride-1 layers stay as they were.
  EXPECT_FALSE(has(planOf(conv2d(32, 32, 32, 3, 64, {3, 3}, {2, 2}), false, {}, 1472), "im2col"));
  EXPECT_FALSE(has(planOf(conv2d(2, 8, 8, 4, 4, {3, 3}, {2, 2}), false, automatic), "im2col"));
  EXPECT_FALSE(has(planOf(conv2d(32, 8, 8, 512, 512, {3, 3}, {1, 1}), false, {}, 1472), "im2col"));
}

TEST(Lowered, BadOptionValueIsRejectedNamingTheOption) {
  try {
    planOf(conv2d(2, 8, 8, 4, 4, {3, 3}, {2, 2}), false, {{"im2colMatMul", "often"}});
    FAIL() << "expected poplar::invalid_option";
  } catch (const poplar::invalid_option &e) {
    EXPECT_NE(std::string(e.what()).find("im2colMatMul"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("often"), std::string::npos) << e.what();
  }
}

} // namespace
