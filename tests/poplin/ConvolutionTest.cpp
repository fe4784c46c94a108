// poplin::convolution forward pass on small IPU Models against the naive double reference.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "ConvTestSupport.hpp"

using namespace poplin::testing;
using poplar::FLOAT;
using poplar::HALF;
using poplin::ConvParams;

namespace {

/// A 2-D case: batch, channels, field, kernel, stride, padding, dilation, groups.
struct Case2D {
  std::size_t batch, inChans, outChans, groups, height, width, kernel;
  unsigned stride, padding, dilation;
};

ConvParams params2D(const Case2D &c, poplar::Type type = FLOAT) {
  ConvParams p(type, c.batch, {c.height, c.width}, {c.kernel, c.kernel}, c.inChans / c.groups,
               c.outChans / c.groups, c.groups);
  p.inputTransform.paddingLower = p.inputTransform.paddingUpper = {c.padding, c.padding};
  p.kernelTransform.dilation = {c.dilation, c.dilation};
  p.outputTransform.stride = {c.stride, c.stride};
  return p;
}

void checkForward(const ConvParams &p, const ConvRun &run, double tol) {
  auto in = randomValues(inputElements(p), 1), w = randomValues(weightElements(p), 2);
  if (p.inputType == HALF) {
    in = halfRounded(in);
    w = halfRounded(w);
  }
  expectClose(runForward(p, in, w, run), referenceForward(p, in, w), tol, describe(p));
}

class Forward2D : public ::testing::TestWithParam<Case2D> {};

TEST_P(Forward2D, MatchesReferenceWithCreatedTensors) {
  checkForward(params2D(GetParam()), {}, 1e-5);
}

TEST_P(Forward2D, MatchesReferenceWithUserLayoutsOnOneTile) {
  ConvRun run;
  run.create = false;
  run.tiles = 1;
  checkForward(params2D(GetParam()), run, 1e-5);
}

INSTANTIATE_TEST_SUITE_P(
    Sweep, Forward2D,
    ::testing::Values(Case2D{2, 3, 4, 1, 6, 5, 1, 1, 0, 1}, // 1x1
                      Case2D{2, 4, 5, 1, 7, 6, 3, 1, 1, 1}, // 3x3 same padding
                      Case2D{1, 3, 2, 1, 9, 8, 5, 1, 2, 1}, // 5x5
                      Case2D{1, 2, 3, 1, 9, 9, 7, 1, 3, 1}, // 7x7
                      Case2D{2, 4, 6, 1, 8, 7, 3, 2, 1, 1}, // strided
                      Case2D{1, 4, 4, 1, 9, 9, 3, 1, 2, 2}, // dilated kernel
                      Case2D{2, 4, 6, 2, 6, 6, 3, 1, 1, 1}, // 2 groups
                      Case2D{2, 6, 6, 6, 7, 7, 3, 2, 1, 1}, // depthwise, strided
                      Case2D{3, 5, 7, 1, 5, 5, 1, 2, 0, 1}, // 1x1 stride 2
                      // many outputs on a small field: compact panels
                      Case2D{4, 8, 96, 1, 4, 4, 3, 1, 1, 1}, Case2D{3, 4, 64, 1, 8, 7, 3, 2, 1, 1}),
    [](const auto &info) {
      const Case2D &c = info.param;
      std::ostringstream os;
      os << "b" << c.batch << "c" << c.inChans << "o" << c.outChans << "g" << c.groups << "k"
         << c.kernel << "s" << c.stride << "p" << c.padding << "d" << c.dilation;
      return os.str();
    });

TEST(Forward, OneDimensionalField) {
  ConvParams p(FLOAT, 2, {13}, {3}, 3, 4, 1);
  p.inputTransform.paddingLower = {2};
  p.outputTransform.stride = {2};
  checkForward(p, {}, 1e-5);
}

TEST(Forward, ThreeDimensionalField) {
  ConvParams p(FLOAT, 1, {4, 5, 6}, {3, 2, 3}, 2, 3, 1);
  p.inputTransform.paddingLower = {1, 0, 1};
  p.inputTransform.paddingUpper = {1, 1, 0};
  p.outputTransform.stride = {1, 2, 1};
  checkForward(p, {}, 1e-5);
}

TEST(Forward, EveryTransformAtOnce) {
  ConvParams p(FLOAT, 2, {9, 8}, {3, 4}, 2, 3, 1);
  p.inputTransform =
      ConvParams::InputTransform({1, 0}, {0, 2}, {2, 1}, {1, 2}, {3, 0}, {true, false});
  p.kernelTransform =
      ConvParams::InputTransform({0, 1}, {1, 0}, {1, 2}, {1, 0}, {0, 1}, {false, true});
  p.outputTransform = ConvParams::OutputTransform({1, 0}, {0, 1}, {2, 1}, {1, 0}, {0, 2});
  checkForward(p, {}, 1e-5);
  ConvRun run;
  run.create = false;
  checkForward(p, run, 1e-5);
}

TEST(Forward, HalfInputsAndOutputs) {
  ConvParams p = params2D({2, 4, 5, 1, 6, 6, 3, 1, 1, 1}, HALF);
  checkForward(p, {}, 3e-3);
  p.outputType = FLOAT;
  checkForward(p, {}, 1e-5);
}

TEST(Forward, WideChannelsSplitOverManyTiles) {
  // Enough work that the planner splits channels (and sums input-channel partials).
  ConvParams p = params2D({4, 64, 48, 1, 10, 10, 3, 1, 1, 1});
  ConvRun run;
  run.tiles = 32;
  checkForward(p, run, 1e-4);
}

TEST(Forward, BitIdenticalForOneAndTwoHostThreads) {
  ConvParams p = params2D({4, 32, 32, 1, 10, 10, 3, 1, 1, 1});
  const auto in = randomValues(inputElements(p), 5), w = randomValues(weightElements(p), 6);
  ConvRun one, two;
  one.tiles = two.tiles = 16;
  one.hostThreads = 1;
  two.hostThreads = 2;
  EXPECT_EQ(runForward(p, in, w, one), runForward(p, in, w, two));
}

TEST(Forward, ReportPlanInfoDescribesTheSplit) {
  ConvParams p = params2D({2, 8, 8, 1, 8, 8, 3, 1, 1, 1});
  poplar::Device d = convDevice(8);
  poplar::Graph graph(d.getTarget());
  std::ostringstream os;
  poplin::PlanningCache cache;
  poplin::reportPlanInfo(os, graph, p, {}, &cache);
  EXPECT_NE(os.str().find("convolution plan"), std::string::npos) << os.str();
  EXPECT_NE(os.str().find("memory per tile"), std::string::npos) << os.str();
}

TEST(Forward, ReportWeightUpdatePlanInfoDescribesTheWeightGradientPlan) {
  ConvParams p = params2D({2, 8, 8, 1, 8, 8, 3, 1, 1, 1});
  poplar::Device d = convDevice(8);
  poplar::Graph graph(d.getTarget());
  std::ostringstream os;
  poplin::reportWeightUpdatePlanInfo(os, graph, p);
  EXPECT_NE(os.str().find("convolution plan (weight gradient)"), std::string::npos) << os.str();
  EXPECT_NE(os.str().find("partials summed over"), std::string::npos) << os.str();
}

TEST(Forward, FlopsCountOnlyRealProducts) {
  ConvParams p(FLOAT, 2, {5}, {3}, 3, 4, 1);
  EXPECT_EQ(poplin::getFwdFlops(p), 2u * 2 * 3 * 4 * 3 * 3);
  p.inputTransform.paddingLower = p.inputTransform.paddingUpper = {1};
  // Five outputs; the two edge outputs each miss one kernel element.
  EXPECT_EQ(poplin::getFwdFlops(p), 2u * 2 * 3 * 4 * (5 * 3 - 2));
  EXPECT_EQ(poplin::getWuFlops(p), poplin::getFwdFlops(p));
  EXPECT_EQ(poplin::getBwdFlops(p), poplin::getFwdFlops(p));
}

} // namespace
