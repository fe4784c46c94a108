// The layers an EfficientNet trainer adds to apps/common, each on a small device. Grouped and
// depthwise Conv2d, Swish, Sigmoid and SqueezeExcite against naive double references, their
// gradients against central finite differences of the reference loss L = Σ gradOut ⊙ out;
// StochasticDepth and Dropout by the properties of their masks (a dropped unit is all zero, a
// kept one exactly x / p_keep, the expected value is x, backward goes through the same mask, a
// step gets a new mask only when the seed advances, Inference is the identity, rate 0 draws no
// random numbers); and every configuration error is a cli_error naming the layer.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <tessera/apps/Errors.hpp>
#include <tessera/apps/layers/Activations.hpp>
#include <tessera/apps/layers/Conv2d.hpp>
#include <tessera/apps/layers/Dropout.hpp>
#include <tessera/apps/layers/SqueezeExcite.hpp>
#include <tessera/apps/layers/StochasticDepth.hpp>

#include "LayerReferences.hpp"
#include "LayerRig.hpp"

namespace tessera::apps {
namespace {

using namespace test;

/// Runs `build` expecting a cli_error whose message names `layer` and contains every `part`.
void expectCliError(const std::function<void()> &build, const std::string &layer,
                    const std::vector<std::string> &parts = {}) {
  try {
    build();
    FAIL() << "layer '" << layer << "' accepted a bad configuration";
  } catch (const cli_error &e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'" + layer + "'"), std::string::npos) << what;
    for (const auto &part : parts)
      EXPECT_NE(what.find(part), std::string::npos) << "'" << part << "' missing from: " << what;
  }
}

// ---- Conv2d with groups ------------------------------------------------------------------------

class GroupedConv : public ::testing::TestWithParam<ConvCase> {};

TEST_P(GroupedConv, ForwardMatchesNaiveLoopAndGradientsMatchFiniteDifferences) {
  const ConvCase c = GetParam();
  LayerRig rig;
  Conv2d conv("conv", Conv2dOptions{c.in, c.out, c.kernel, c.stride, c.padding, c.bias, c.groups});
  const std::vector<std::size_t> outShape{c.batch, c.out, c.outSize(c.height), c.outSize(c.width)};
  poplar::Tensor x = rig.input("x", {c.batch, c.in, c.height, c.width});
  poplar::Tensor gradOut = rig.input("gradOut", outShape);
  poplar::program::Sequence prog;
  rig.output("y", conv.forward(rig.ctx(), x, Mode::Training, prog));
  rig.output("gradIn", conv.backward(rig.ctx(), gradOut, true, prog));
  rig.exposeParameters();
  const auto &params = rig.ctx().parameters();
  ASSERT_EQ(params.size(), c.bias ? 2u : 1u);
  // The grouped weights shape poplin expects: [groups][out/groups][in/groups][k][k].
  EXPECT_EQ(
      params[0]->value.shape(),
      (std::vector<std::size_t>{c.groups, c.out / c.groups, c.in / c.groups, c.kernel, c.kernel}));
  rig.load({prog});

  Vec xs = randomValues(x.numElements(), 1), gys = randomValues(gradOut.numElements(), 2);
  Vec w = randomValues(c.weightElements(), 3), bias = randomValues(c.out, 4);
  rig.write("x", xs);
  rig.write("gradOut", gys);
  rig.write("conv/weights", w);
  if (c.bias)
    rig.write("conv/bias", bias);
  rig.run(1);

  expectClose(rig.read("y"), referenceConv(c, xs, w, bias), 1e-5, "y");
  auto loss = [&] { return dot(referenceConv(c, xs, w, bias), gys); };
  expectClose(rig.read("gradIn"), finiteDifference(xs, loss), 1e-4, "gradIn");
  expectClose(rig.read("conv/weights/grad"), finiteDifference(w, loss), 1e-4, "weights/grad");
  if (c.bias)
    expectClose(rig.read("conv/bias/grad"), finiteDifference(bias, loss), 1e-4, "bias/grad");
}

const ConvCase kConvCases[] = {
    {"grouped", 2, 4, 6, 2, 6, 5, 3, 1, 1, true},
    {"groupedPointwise", 2, 6, 4, 2, 4, 4, 1, 1, 0, false},
    {"depthwiseStride2", 2, 5, 5, 5, 7, 6, 3, 2, 1, false},
    {"depthwiseK5", 1, 3, 3, 3, 6, 6, 5, 1, 2, true},
};

INSTANTIATE_TEST_SUITE_P(EfficientNetLayers, GroupedConv, ::testing::ValuesIn(kConvCases),
                         [](const auto &info) { return std::string(info.param.name); });

TEST(EfficientNetLayers, GroupedConvHeNormalFanInIsOneGroupsInputChannels) {
  // Depthwise 3x3: each output sees 9 inputs, so std = sqrt(2/9) ≈ 0.47, not sqrt(2/576).
  LayerRig rig(8, 7);
  Conv2d conv("dw", Conv2dOptions{64, 64, 3, 1, 1, false, 64});
  poplar::program::Sequence prog;
  conv.forward(rig.ctx(), rig.input("x", {1, 64, 4, 4}), Mode::Inference, prog);
  rig.exposeParameters();
  rig.load({prog});
  const Vec w = rig.read("dw/weights");
  ASSERT_EQ(w.size(), 64u * 9u);
  const double stdDev = std::sqrt(dot(w, w) / double(w.size()));
  // 576 samples estimate the standard deviation within ≈ 3 %; a wrong fan-in is off 8×.
  EXPECT_NEAR(stdDev, std::sqrt(2.0 / 9.0), 0.15 * std::sqrt(2.0 / 9.0));
}

TEST(EfficientNetLayers, GroupedConvChannelsNotDivisibleByGroupsNameTheLayerAndBothNumbers) {
  expectCliError(
      [] {
        Conv2d("blocks/2/dw", Conv2dOptions{6, 8, 3, 1, 1, false, 4});
      },
      "blocks/2/dw", {"6 input channels", "4 groups"});
  expectCliError(
      [] {
        Conv2d("blocks/2/pw", Conv2dOptions{8, 6, 1, 1, 0, false, 4});
      },
      "blocks/2/pw", {"6 output channels", "4 groups"});
  expectCliError(
      [] {
        Conv2d("blocks/2/zero", Conv2dOptions{8, 8, 3, 1, 1, false, 0});
      },
      "blocks/2/zero", {"groups"});
}

// ---- Swish and Sigmoid -------------------------------------------------------------------------

TEST(EfficientNetLayers, SwishAndSigmoidMatchClosedFormAndFiniteDifferences) {
  LayerRig rig;
  const std::vector<std::size_t> shape{3, 4, 5};
  poplar::Tensor x = rig.input("x", shape), gradOut = rig.input("gradOut", shape);
  Swish swishLayer("swish");
  Sigmoid sigmoidLayer("sigmoid");
  poplar::program::Sequence prog;
  rig.output("swish", swishLayer.forward(rig.ctx(), x, Mode::Training, prog));
  rig.output("swishGrad", swishLayer.backward(rig.ctx(), gradOut, true, prog));
  rig.output("sigmoid", sigmoidLayer.forward(rig.ctx(), x, Mode::Training, prog));
  rig.output("sigmoidGrad", sigmoidLayer.backward(rig.ctx(), gradOut, true, prog));
  rig.load({prog});

  Vec xs(x.numElements());
  for (std::size_t i = 0; i < xs.size(); ++i) // −6 … 5.8 in steps of 0.2, through 0
    xs[i] = float(-6.0 + 0.2 * double(i));
  const Vec gys = randomValues(xs.size(), 5);
  rig.write("x", xs);
  rig.write("gradOut", gys);
  rig.run(1);

  for (const auto &[name, f] :
       std::map<std::string, double (*)(double)>{{"swish", swish}, {"sigmoid", sigmoid}}) {
    Vec value(xs.size()), grad(xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i) {
      value[i] = f(xs[i]);
      const double h = 1e-5;
      grad[i] = gys[i] * (f(xs[i] + h) - f(xs[i] - h)) / (2 * h);
    }
    expectClose(rig.read(name), value, 1e-6, name);
    expectClose(rig.read(name + "Grad"), grad, 1e-5, name + "Grad");
  }
}

// ---- SqueezeExcite -----------------------------------------------------------------------------

TEST(EfficientNetLayers, SqueezeExciteMatchesNaiveReferenceAndAllGradientsFiniteDifferences) {
  const SeShape s;
  LayerRig rig;
  SqueezeExcite se("se", SqueezeExciteOptions{s.C, s.R});
  rig.buildTrainingAndInference(se, {s.B, s.C, s.H, s.W});

  const std::size_t n = s.B * s.C * s.H * s.W;
  Vec xs = randomValues(n, 11, -2.0, 2.0);
  const Vec gys = randomValues(n, 12);
  rig.write("x", xs);
  rig.write("gradOut", gys);
  // Non-zero biases too, so every term of the reference is exercised.
  std::map<std::string, Vec> params;
  unsigned seed = 20;
  for (const auto &p : rig.ctx().parameters()) {
    params[p->name] = randomValues(p->value.numElements(), seed++);
    rig.write(p->name, params[p->name]);
  }
  ASSERT_EQ(params.size(), 4u);
  ASSERT_EQ(rig.ctx().parameters()[0]->value.shape(), (std::vector<std::size_t>{s.C, s.R}));
  rig.run(1);
  rig.run(2);

  const Vec want = referenceSqueezeExcite(s, params, xs);
  expectClose(rig.read("y"), want, 1e-5, "y");
  expectClose(rig.read("yInference"), want, 1e-5, "yInference");
  auto loss = [&] { return dot(referenceSqueezeExcite(s, params, xs), gys); };
  expectClose(rig.read("gradIn"), finiteDifference(xs, loss), 2e-4, "gradIn");
  for (auto &[name, value] : params)
    expectClose(rig.read(name + "/grad"), finiteDifference(value, loss), 2e-4, name + "/grad");
}

TEST(EfficientNetLayers, SqueezeExciteWithBadChannelsNamesTheLayer) {
  expectCliError(
      [] {
        SqueezeExcite("blocks/4/se", SqueezeExciteOptions{16, 0});
      },
      "blocks/4/se", {"reduced channels (0)"});
  LayerRig rig(4);
  SqueezeExcite se("blocks/5/se", SqueezeExciteOptions{6, 2});
  poplar::program::Sequence prog;
  try {
    se.forward(rig.ctx(), rig.input("x", {2, 5, 3, 3}), Mode::Training, prog);
    FAIL() << "accepted 5 channels";
  } catch (const app_error &e) {
    EXPECT_NE(std::string(e.what()).find("'blocks/5/se' expects input [B][6][H][W]"),
              std::string::npos)
        << e.what();
  }
}

// ---- StochasticDepth and Dropout ---------------------------------------------------------------

/// Runs a dropping layer over `shape` and checks its masks, where a "unit" (a whole sample for
/// StochasticDepth, one element for Dropout) is `unitSize` consecutive elements.
void expectDropMasks(Layer &layer, const std::vector<std::size_t> &shape, std::size_t unitSize,
                     float rate) {
  LayerRig rig;
  poplar::Tensor x = rig.input("x", shape), gradOut = rig.input("gradOut", shape);
  poplar::program::Sequence step, inference, nextSeed;
  rig.output("y", layer.forward(rig.ctx(), x, Mode::Training, step));
  rig.output("gradIn", layer.backward(rig.ctx(), gradOut, true, step));
  rig.output("yInference", layer.forward(rig.ctx(), x, Mode::Inference, inference));
  rig.ctx().advanceStepSeed(nextSeed);
  ASSERT_EQ(rig.ctx().states().size(), 1u) << "the step seed is the layer's only state";
  rig.load({step, inference, nextSeed});
  const Vec xs = nonZeroValues(x.numElements(), 31), gys = nonZeroValues(x.numElements(), 32);
  rig.write("x", xs);
  rig.write("gradOut", gys);
  rig.run(1);
  const Vec y = rig.read("y"), gradIn = rig.read("gradIn");

  // The device scales by float(1 / p_keep), with p_keep from the float rate.
  const double keep = 1.0 - double(rate);
  const float scale = float(1.0 / keep);
  const std::size_t units = xs.size() / unitSize;
  std::size_t kept = 0;
  double deviation = 0, variance = 0;
  for (std::size_t u = 0; u < units; ++u) {
    const std::size_t begin = u * unitSize;
    const bool unitKept = y[begin] != 0.0;
    kept += unitKept;
    double unitSum = 0;
    for (std::size_t i = begin; i < begin + unitSize; ++i) {
      const double wantY = unitKept ? double(float(xs[i]) * scale) : 0.0;
      const double wantGrad = unitKept ? double(float(gys[i]) * scale) : 0.0;
      ASSERT_EQ(y[i], wantY) << "unit " << u << " element " << i - begin;
      ASSERT_EQ(gradIn[i], wantGrad) << "backward's mask differs at unit " << u;
      deviation += y[i] - xs[i];
      unitSum += xs[i];
    }
    // A unit's output is x / p_keep with probability p_keep, else 0: mean x, variance
    // x² (1 − p_keep) / p_keep; the units are independent.
    variance += unitSum * unitSum * (1 - keep) / keep;
  }
  // Within 5 standard deviations (the seed is fixed, so this never flakes; a wrong scale or
  // rate is far outside).
  const double keptFraction = double(kept) / double(units);
  EXPECT_NEAR(keptFraction, keep, 5 * std::sqrt(keep * (1 - keep) / double(units)));
  EXPECT_LT(std::abs(deviation), 5 * std::sqrt(variance)) << "the expected value is not x";

  rig.run(2);
  EXPECT_EQ(rig.read("yInference"), xs) << "Inference is the identity";
  rig.run(1);
  EXPECT_EQ(rig.read("y"), y) << "the same step seed must give the same mask";
  rig.run(3);
  rig.run(1);
  EXPECT_NE(rig.read("y"), y) << "the next step seed must give another mask";
}

TEST(EfficientNetLayers, StochasticDepthDropsWholeSamplesOrScalesThemKeepingTheMean) {
  StochasticDepth layer("blocks/7/dropPath", 0.3f);
  expectDropMasks(layer, {400, 2, 2, 3}, 12, 0.3f);
}

TEST(EfficientNetLayers, DropoutDropsElementsOrScalesThemKeepingTheMean) {
  Dropout layer("head/dropout", 0.25f);
  expectDropMasks(layer, {40, 50}, 1, 0.25f);
}

TEST(EfficientNetLayers, DropRateZeroIsTheIdentityWithoutRandomNumbers) {
  LayerRig rig;
  poplar::Tensor x = rig.input("x", {4, 3, 2, 2}), gradOut = rig.input("gradOut", {4, 3, 2, 2});
  StochasticDepth dropPath("dropPath", 0.0f);
  Dropout dropout("dropout", 0.0f);
  poplar::program::Sequence prog;
  for (Layer *layer : {static_cast<Layer *>(&dropPath), static_cast<Layer *>(&dropout)}) {
    EXPECT_TRUE(layer->forward(rig.ctx(), x, Mode::Training, prog) == x) << layer->name();
    EXPECT_TRUE(layer->backward(rig.ctx(), gradOut, true, prog) == gradOut) << layer->name();
  }
  EXPECT_TRUE(rig.ctx().states().empty()) << "no step seed was created";
}

TEST(EfficientNetLayers, DropRatesOutsideZeroToOneNameTheLayer) {
  for (float rate : {-0.1f, 1.0f, 1.5f, std::numeric_limits<float>::quiet_NaN()}) {
    expectCliError([&] { StochasticDepth("blocks/3/dropPath", rate); }, "blocks/3/dropPath",
                   {"drop rate"});
    expectCliError([&] { Dropout("head/dropout", rate); }, "head/dropout", {"drop rate"});
  }
}

TEST(EfficientNetLayers, BackwardBeforeATrainingForwardNamesTheLayer) {
  LayerRig rig(4);
  poplar::Tensor g = rig.input("g", {2, 4, 3, 3});
  poplar::program::Sequence prog;
  Swish swishLayer("act/swish");
  Sigmoid sigmoidLayer("act/sigmoid");
  SqueezeExcite se("block/se", SqueezeExciteOptions{4, 2});
  StochasticDepth dropPath("block/dropPath", 0.2f);
  Dropout dropout("block/dropout", 0.2f);
  for (Layer *layer : std::vector<Layer *>{&swishLayer, &sigmoidLayer, &se, &dropPath, &dropout}) {
    try {
      layer->backward(rig.ctx(), g, true, prog);
      ADD_FAILURE() << layer->name() << " ran backward without a forward";
    } catch (const app_error &e) {
      EXPECT_NE(std::string(e.what()).find("'" + layer->name() + "'"), std::string::npos)
          << e.what();
    }
  }
}

} // namespace
} // namespace tessera::apps
