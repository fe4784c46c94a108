// Depthwise convolutions (one input and one output channel per group), which the codelets run
// as per-line stencils rather than GEMMs: forward, input gradient and weight gradient against
// the naive double reference, FLOAT and HALF, and bit-identical for one and two host threads.
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

/// batch, channels (= groups), height, width, kernel, stride; padding kernel / 2.
struct DepthwiseCase {
  const char *name;
  std::size_t batch, chans, height, width, kernel;
  unsigned stride;
};

ConvParams depthwise(const DepthwiseCase &c, poplar::Type type) {
  ConvParams p(type, c.batch, {c.height, c.width}, {c.kernel, c.kernel}, 1, 1, c.chans);
  const unsigned pad = unsigned(c.kernel / 2);
  p.inputTransform.paddingLower = p.inputTransform.paddingUpper = {pad, pad};
  p.outputTransform.stride = {c.stride, c.stride};
  return p;
}

/// Values as the device holds them for `type`.
std::vector<float> values(std::size_t n, int seed, poplar::Type type) {
  auto v = randomValues(n, seed);
  return type == HALF ? halfRounded(v) : v;
}

class Depthwise
    : public ::testing::TestWithParam<std::tuple<DepthwiseCase, poplar::Type, bool /*create*/>> {
protected:
  ConvParams params() const { return depthwise(std::get<0>(GetParam()), std::get<1>(GetParam())); }
  double tolerance() const { return std::get<1>(GetParam()) == HALF ? 3e-3 : 1e-5; }
  /// Created tensors on 8 tiles, or user layouts on one tile (every group in one block).
  ConvRun run() const {
    ConvRun r;
    if (!std::get<2>(GetParam())) {
      r.create = false;
      r.tiles = 1;
    }
    return r;
  }
};

TEST_P(Depthwise, ForwardMatchesReference) {
  const ConvParams p = params();
  const auto in = values(inputElements(p), 1, p.inputType);
  const auto w = values(weightElements(p), 2, p.inputType);
  expectClose(runForward(p, in, w, run()), referenceForward(p, in, w), tolerance(), describe(p));
}

TEST_P(Depthwise, InputGradientMatchesReference) {
  const ConvParams p = params();
  const auto dOut = values(outputElements(p), 3, p.inputType);
  const auto w = values(weightElements(p), 4, p.inputType);
  expectClose(runInputGrad(p, dOut, w, run()), referenceInputGrad(p, dOut, w), tolerance(),
              describe(p));
}

TEST_P(Depthwise, WeightGradientMatchesReference) {
  const ConvParams p = params();
  const auto dOut = values(outputElements(p), 5, p.inputType);
  const auto in = values(inputElements(p), 6, p.inputType);
  expectClose(runWeightGrad(p, dOut, in, WeightGradMode::DELTAS, {}, 1.0f, run()),
              referenceWeightGrad(p, dOut, in), tolerance(), describe(p));
}

const DepthwiseCase kCases[] = {
    {"k3", 2, 5, 7, 9, 3, 1},
    {"k3stride2", 3, 4, 8, 7, 3, 2},
    {"k5", 2, 3, 6, 6, 5, 1},
    {"k5stride2", 2, 3, 9, 8, 5, 2},
    // Lines shorter than a SIMD vector, and longer than two.
    {"narrow", 4, 6, 4, 3, 3, 1},
    {"wide", 1, 2, 5, 37, 3, 1},
};

INSTANTIATE_TEST_SUITE_P(Sweep, Depthwise,
                         ::testing::Combine(::testing::ValuesIn(kCases),
                                            ::testing::Values(FLOAT, HALF), ::testing::Bool()),
                         [](const auto &info) {
                           return std::string(std::get<0>(info.param).name) +
                                  (std::get<1>(info.param) == HALF ? "Half" : "Float") +
                                  (std::get<2>(info.param) ? "Created" : "UserLayoutOneTile");
                         });

TEST(DepthwiseThreads, BitIdenticalForOneAndTwoHostThreads) {
  const ConvParams p = depthwise({"t", 8, 12, 10, 10, 3, 2}, FLOAT);
  const auto in = randomValues(inputElements(p), 7), w = randomValues(weightElements(p), 8);
  const auto z = randomValues(outputElements(p), 9);
  ConvRun one, two;
  one.tiles = two.tiles = 16;
  one.hostThreads = 1;
  two.hostThreads = 2;
  EXPECT_EQ(runForward(p, in, w, one), runForward(p, in, w, two));
  EXPECT_EQ(runInputGrad(p, z, w, one), runInputGrad(p, z, w, two));
  EXPECT_EQ(runWeightGrad(p, z, in, WeightGradMode::DELTAS, {}, 1.0f, one),
            runWeightGrad(p, z, in, WeightGradMode::DELTAS, {}, 1.0f, two));
}

} // namespace
