// Pointwise convolutions (1x1 kernels, stride 1, no padding) computed as matrix products
// (poplin/src/ConvAsMatMul.hpp; forced with the option pointwiseAsMatMul=true, as these small
// shapes would otherwise stay on the convolution blocks): all three passes against the naive
// double reference for grouped, 1-D and 3-D fields, HALF, K-split products on many tiles and
// user layouts, bit-identical results for any host thread count, and the option's choices.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ConvTestSupport.hpp"

using namespace poplin::testing;
using poplar::FLOAT;
using poplar::HALF;
using poplin::ConvParams;

namespace {

ConvParams pointwise(std::size_t batch, std::vector<std::size_t> field, std::size_t ic,
                     std::size_t oc, std::size_t groups = 1, poplar::Type type = FLOAT) {
  std::vector<std::size_t> kernel(field.size(), 1);
  return ConvParams(type, batch, std::move(field), std::move(kernel), ic / groups, oc / groups,
                    groups);
}

const poplar::OptionFlags kAsMatMul{{"pointwiseAsMatMul", "true"}};

std::string planOf(const ConvParams &p, bool weightUpdate,
                   const poplar::OptionFlags &options = kAsMatMul, unsigned tiles = 8) {
  return planReport(p, weightUpdate, options, tiles);
}

ConvRun asMatMul(ConvRun run = {}) {
  run.options = kAsMatMul;
  return run;
}

/// Forward, input gradient and weight gradient of `p` against the reference.
void checkAllPasses(const ConvParams &p, const ConvRun &given, double tol) {
  expectAllPassesMatch(p, asMatMul(given), tol);
}

TEST(Pointwise, PlansAreMatrixProductsOnlyForPointwiseConvolutions) {
  EXPECT_NE(planOf(pointwise(2, {4, 4}, 8, 8), false).find("pointwise"), std::string::npos);
  EXPECT_NE(planOf(pointwise(2, {4, 4}, 8, 8), true).find("pointwise"), std::string::npos);
  // Strided: a product over the sampled positions when the stride divides the field.
  ConvParams strided = pointwise(2, {4, 6}, 8, 8);
  strided.outputTransform.stride = {2, 3};
  EXPECT_NE(planOf(strided, false).find("pointwise"), std::string::npos);
  EXPECT_NE(planOf(poplin::getGradientParams(strided), false).find("pointwise"), std::string::npos);
  ConvParams ragged = pointwise(2, {5, 4}, 8, 8);
  ragged.outputTransform.stride = {2, 2};
  EXPECT_EQ(planOf(ragged, false).find("pointwise"), std::string::npos);
  ConvParams padded = pointwise(2, {4, 4}, 8, 8);
  padded.inputTransform.paddingLower = {1, 0};
  EXPECT_EQ(planOf(padded, false).find("pointwise"), std::string::npos);
  ConvParams k3(FLOAT, 2, {4, 4}, {3, 3}, 8, 8, 1);
  EXPECT_EQ(planOf(k3, false).find("pointwise"), std::string::npos);
}

TEST(Pointwise, AutoChoosesTheProductOnlyForWideChannels) {
  const poplar::OptionFlags automatic{{"pointwiseAsMatMul", "auto"}},
      never{{"pointwiseAsMatMul", "false"}};
  // A handful of channels: the blocks are cheaper.
  EXPECT_EQ(planOf(pointwise(2, {4, 4}, 8, 8), false, automatic).find("pointwise"),
            std::string::npos);
  EXPECT_EQ(planOf(pointwise(2, {4, 4}, 8, 8), false, {}).find("pointwise"), std::string::npos);
  // ResNet-50's late 1x1 layers: the product.
  const ConvParams wide = pointwise(32, {4, 4}, 512, 1024);
  EXPECT_NE(planOf(wide, false, automatic, 1472).find("pointwise"), std::string::npos);
  EXPECT_NE(planOf(wide, true, automatic, 1472).find("pointwise"), std::string::npos);
  EXPECT_EQ(planOf(wide, false, never, 1472).find("pointwise"), std::string::npos);
}

TEST(Pointwise, BadOptionValueIsRejectedNamingTheOption) {
  try {
    planOf(pointwise(2, {4, 4}, 8, 8), false, {{"pointwiseAsMatMul", "sometimes"}});
    FAIL() << "expected poplar::invalid_option";
  } catch (const poplar::invalid_option &e) {
    EXPECT_NE(std::string(e.what()).find("pointwiseAsMatMul"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("sometimes"), std::string::npos) << e.what();
  }
}

TEST(Pointwise, EveryPassMatchesReferenceOnFieldsOfEachRank) {
  checkAllPasses(pointwise(3, {7}, 5, 6), {}, 1e-5);
  checkAllPasses(pointwise(2, {5, 6}, 12, 20), {}, 1e-5);
  checkAllPasses(pointwise(1, {3, 4, 5}, 4, 3), {}, 1e-5);
}

TEST(Pointwise, StridedConvolutionsSampleTheirInput) {
  // The input gradient writes every stride-th output and zeros between them.
  ConvParams p = pointwise(2, {8, 6}, 6, 10);
  p.outputTransform.stride = {2, 2};
  checkAllPasses(p, {}, 1e-5);
  ConvParams mixed = pointwise(1, {4, 6, 3}, 3, 5);
  mixed.outputTransform.stride = {2, 1, 3};
  checkAllPasses(mixed, {}, 1e-5);
  ConvParams lastOnly = pointwise(2, {3, 8}, 4, 4);
  lastOnly.outputTransform.stride = {1, 4};
  checkAllPasses(lastOnly, {}, 1e-5);
  ConvRun user;
  user.create = false;
  user.tiles = 3;
  checkAllPasses(p, user, 1e-5);
  ConvParams half = pointwise(2, {6, 6}, 8, 12, 1, HALF);
  half.outputTransform.stride = {3, 2};
  checkAllPasses(half, {}, 3e-3);
}

TEST(Pointwise, GroupedConvolutionsAreGroupedProducts) {
  checkAllPasses(pointwise(2, {5, 4}, 12, 9, 3), {}, 1e-5);
  ConvRun user;
  user.create = false; // linearly mapped [B][C][F] tensors: the products gather them
  user.tiles = 3;
  checkAllPasses(pointwise(2, {5, 4}, 12, 9, 3), user, 1e-5);
}

TEST(Pointwise, HalfInputsWithHalfAndFloatOutputs) {
  ConvParams p = pointwise(2, {6, 5}, 24, 40, 1, HALF);
  checkAllPasses(p, {}, 3e-3);
  // FLOAT results of HALF operands (forward only: the other passes would take FLOAT dOut).
  p.outputType = FLOAT;
  const auto in = halfRounded(randomValues(inputElements(p), 4));
  const auto w = halfRounded(randomValues(weightElements(p), 5));
  expectClose(runForward(p, in, w, asMatMul()), referenceForward(p, in, w), 1e-5,
              "forward to FLOAT");
}

TEST(Pointwise, ProductsSplitOverManyTilesSumTheirPartials) {
  // Enough positions that the weight gradient splits its inner dimension (batch × field)
  // over tiles and steps, and enough channels that the other passes split theirs.
  ConvRun run;
  run.tiles = 64;
  checkAllPasses(pointwise(8, {16, 16}, 96, 80), run, 1e-4);
}

TEST(Pointwise, WeightUpdateAddsScaledDeltas) {
  const ConvParams p = pointwise(4, {6, 6}, 16, 24);
  expectWeightUpdateMatches(p, asMatMul(), 1e-5);
}

TEST(Pointwise, BitIdenticalForOneAndTwoHostThreads) {
  const ConvParams p = pointwise(8, {12, 12}, 48, 40);
  ConvRun run = asMatMul();
  run.tiles = 32;
  expectBitIdenticalForOneAndTwoThreads(p, run);
}

} // namespace
