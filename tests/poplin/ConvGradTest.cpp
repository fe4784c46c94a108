// Convolution gradients on small IPU Models against the naive double reference: input gradient
// (getGradientParams + transposeAndFlipWeights), weight gradient (calculateWeightDeltas,
// convolutionWeightUpdate), and the bias helpers and weightsTransposeChansFlipXY against loops.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <popops/codelets.hpp>

#include "ConvTestSupport.hpp"

using namespace poplin::testing;
using poplar::FLOAT;
using poplar::HALF;
using poplin::ConvParams;

namespace {

struct GradCase {
  const char *name;
  ConvParams params;
};

ConvParams conv2D(std::size_t batch, std::size_t ic, std::size_t oc, std::size_t groups,
                  std::size_t h, std::size_t w, std::size_t k, unsigned stride, unsigned pad,
                  unsigned dilation = 1) {
  ConvParams p(FLOAT, batch, {h, w}, {k, k}, ic / groups, oc / groups, groups);
  p.inputTransform.paddingLower = p.inputTransform.paddingUpper = {pad, pad};
  p.kernelTransform.dilation = {dilation, dilation};
  p.outputTransform.stride = {stride, stride};
  return p;
}

std::vector<GradCase> gradCases() {
  std::vector<GradCase> cases = {
      {"k1", conv2D(2, 3, 4, 1, 5, 6, 1, 1, 0)},
      {"k3pad", conv2D(2, 4, 5, 1, 6, 6, 3, 1, 1)},
      {"k3stride2", conv2D(2, 4, 6, 1, 7, 8, 3, 2, 1)},
      {"k5", conv2D(1, 3, 2, 1, 8, 8, 5, 1, 2)},
      {"k7stride2", conv2D(1, 2, 3, 1, 11, 10, 7, 2, 3)},
      {"dilated", conv2D(1, 3, 3, 1, 9, 9, 3, 1, 2, 2)},
      {"groups2", conv2D(2, 4, 6, 2, 6, 5, 3, 1, 1)},
      {"depthwise", conv2D(2, 5, 5, 5, 7, 7, 3, 2, 1)},
      {"stride1x1", conv2D(2, 4, 3, 1, 7, 7, 1, 2, 0)},
      // Many output channels on a small field: the codelets copy a compact panel from the
      // padded plane rather than multiply the plane's padding columns.
      {"wideOnSmallField", conv2D(4, 8, 96, 1, 4, 4, 3, 1, 1)},
      {"wideStrided", conv2D(3, 4, 64, 1, 8, 7, 3, 2, 1)},
      // Weight gradients over several 32-column GEMM panels, transposing the plane rows (fewer
      // kernel columns than output channels) and the output gradient (more).
      {"k1ManyChannels", conv2D(2, 40, 70, 1, 6, 5, 1, 1, 0)},
      {"k3ManyOutputs", conv2D(2, 8, 40, 1, 6, 6, 3, 1, 1)},
  };
  ConvParams oneD(FLOAT, 2, {12}, {3}, 3, 2, 1);
  oneD.outputTransform.stride = {3};
  oneD.inputTransform.paddingLower = {1};
  cases.push_back({"field1D", oneD});
  ConvParams threeD(FLOAT, 1, {4, 5, 5}, {2, 3, 3}, 2, 3, 1);
  threeD.inputTransform.paddingLower = threeD.inputTransform.paddingUpper = {0, 1, 1};
  threeD.outputTransform.stride = {1, 2, 2};
  cases.push_back({"field3D", threeD});
  ConvParams all(FLOAT, 2, {9, 8}, {3, 4}, 2, 3, 1);
  all.inputTransform =
      ConvParams::InputTransform({1, 0}, {0, 2}, {2, 1}, {1, 2}, {3, 0}, {true, false});
  all.kernelTransform =
      ConvParams::InputTransform({0, 1}, {1, 0}, {1, 2}, {1, 0}, {0, 1}, {false, true});
  all.outputTransform = ConvParams::OutputTransform({1, 0}, {0, 1}, {2, 1}, {1, 0}, {0, 2});
  cases.push_back({"everyTransform", all});
  return cases;
}

class Gradients : public ::testing::TestWithParam<GradCase> {};

TEST_P(Gradients, GradientParamsOutputShapeIsForwardInputShape) {
  const ConvParams &p = GetParam().params;
  const ConvParams bwd = poplin::getGradientParams(p);
  EXPECT_EQ(bwd.getOutputFieldShape(), p.inputFieldShape) << describe(bwd);
  EXPECT_EQ(bwd.inputFieldShape, p.getOutputFieldShape());
  EXPECT_EQ(bwd.getNumInputChans(), p.getNumOutputChans());
  EXPECT_EQ(bwd.getNumOutputChans(), p.getNumInputChans());
}

TEST_P(Gradients, InputGradientMatchesReference) {
  const ConvParams &p = GetParam().params;
  const auto dOut = randomValues(outputElements(p), 3), w = randomValues(weightElements(p), 4);
  expectClose(runInputGrad(p, dOut, w), referenceInputGrad(p, dOut, w), 1e-5, describe(p));
  ConvRun user;
  user.create = false;
  user.tiles = 3;
  expectClose(runInputGrad(p, dOut, w, user), referenceInputGrad(p, dOut, w), 1e-5, describe(p));
}

TEST_P(Gradients, WeightDeltasMatchReference) {
  const ConvParams &p = GetParam().params;
  const auto dOut = randomValues(outputElements(p), 5), in = randomValues(inputElements(p), 6);
  const auto want = referenceWeightGrad(p, dOut, in);
  expectClose(runWeightGrad(p, dOut, in, WeightGradMode::DELTAS), want, 1e-5, describe(p));
  ConvRun user;
  user.create = false;
  user.tiles = 1;
  expectClose(runWeightGrad(p, dOut, in, WeightGradMode::DELTAS, {}, 1.0f, user), want, 1e-5,
              describe(p));
}

INSTANTIATE_TEST_SUITE_P(Sweep, Gradients, ::testing::ValuesIn(gradCases()),
                         [](const auto &info) { return std::string(info.param.name); });

TEST(WeightUpdate, FloatAndTensorScaleAddScaledDeltas) {
  const ConvParams p = conv2D(2, 4, 6, 1, 7, 7, 3, 2, 1);
  const auto dOut = randomValues(outputElements(p), 7), in = randomValues(inputElements(p), 8);
  const auto w0 = randomValues(weightElements(p), 9);
  const auto dW = referenceWeightGrad(p, dOut, in);
  std::vector<double> want(dW.size());
  for (std::size_t i = 0; i < dW.size(); ++i)
    want[i] = w0[i] - 0.25 * dW[i];
  for (auto mode : {WeightGradMode::UPDATE_FLOAT_SCALE, WeightGradMode::UPDATE_TENSOR_SCALE})
    for (bool create : {true, false}) {
      ConvRun run;
      run.create = create;
      expectClose(runWeightGrad(p, dOut, in, mode, w0, -0.25f, run), want, 1e-5,
                  create ? "created" : "user layout");
    }
}

TEST(WeightGradients, LargeBatchSplitsAndSumsPartials) {
  // Enough positions that the planner splits the batch/rows and sums partials across tiles.
  const ConvParams p = conv2D(8, 16, 16, 1, 12, 12, 3, 1, 1);
  const auto dOut = randomValues(outputElements(p), 10), in = randomValues(inputElements(p), 11);
  ConvRun run;
  run.tiles = 32;
  expectClose(runWeightGrad(p, dOut, in, WeightGradMode::DELTAS, {}, 1.0f, run),
              referenceWeightGrad(p, dOut, in), 1e-4, "split");
}

TEST(WeightGradients, BitIdenticalForOneAndTwoHostThreads) {
  const ConvParams p = conv2D(8, 16, 16, 1, 12, 12, 3, 1, 1);
  const auto dOut = randomValues(outputElements(p), 12), in = randomValues(inputElements(p), 13);
  ConvRun one, two;
  one.tiles = two.tiles = 32;
  one.hostThreads = 1;
  two.hostThreads = 2;
  EXPECT_EQ(runWeightGrad(p, dOut, in, WeightGradMode::DELTAS, {}, 1.0f, one),
            runWeightGrad(p, dOut, in, WeightGradMode::DELTAS, {}, 1.0f, two));
  EXPECT_EQ(runInputGrad(p, dOut, randomValues(weightElements(p), 14), one),
            runInputGrad(p, dOut, randomValues(weightElements(p), 14), two));
  // Strided: the input gradient runs one vertex per row phase.
  const ConvParams strided = conv2D(4, 16, 8, 1, 12, 12, 3, 2, 1);
  const auto z = randomValues(outputElements(strided), 15);
  const auto w = randomValues(weightElements(strided), 16);
  EXPECT_EQ(runInputGrad(strided, z, w, one), runInputGrad(strided, z, w, two));
}

TEST(Gradients, HalfPrecision) {
  ConvParams p = conv2D(2, 4, 4, 1, 6, 6, 3, 2, 1);
  p.inputType = p.outputType = HALF;
  const auto dOut = halfRounded(randomValues(outputElements(p), 15));
  const auto in = halfRounded(randomValues(inputElements(p), 16));
  const auto w = halfRounded(randomValues(weightElements(p), 17));
  expectClose(runInputGrad(p, dOut, w), referenceInputGrad(p, dOut, w), 3e-3, "half dIn");
  expectClose(runWeightGrad(p, dOut, in, WeightGradMode::DELTAS), referenceWeightGrad(p, dOut, in),
              3e-3, "half dW");
}

/// A stride-2 input gradient through the codelets' shared plane (every output phase of a block
/// from one padded copy of its input): kernels 1 and 3, FLOAT and HALF, odd field sizes so some
/// blocks end on a partial phase, and the same bits for one and two host threads.
class StridedInputGradient : public ::testing::TestWithParam<std::tuple<std::size_t, bool>> {};

TEST_P(StridedInputGradient, MatchesReferenceForOneAndTwoHostThreads) {
  const auto [k, half] = GetParam();
  ConvParams p = conv2D(3, 6, 10, 1, 9, 7, k, 2, k / 2);
  if (half)
    p.inputType = p.outputType = HALF;
  const auto round = [&](std::vector<float> v) { return half ? halfRounded(std::move(v)) : v; };
  const auto dOut = round(randomValues(outputElements(p), 18));
  const auto w = round(randomValues(weightElements(p), 19));
  ConvRun one, two;
  one.tiles = two.tiles = 6;
  one.hostThreads = 1;
  two.hostThreads = 2;
  const auto got = runInputGrad(p, dOut, w, one);
  expectClose(got, referenceInputGrad(p, dOut, w), half ? 3e-3 : 1e-5, describe(p));
  EXPECT_EQ(got, runInputGrad(p, dOut, w, two)) << describe(p);
}

INSTANTIATE_TEST_SUITE_P(KernelsAndTypes, StridedInputGradient,
                         ::testing::Combine(::testing::Values(std::size_t(1), std::size_t(3)),
                                            ::testing::Bool()),
                         [](const auto &info) {
                           std::ostringstream name;
                           name << 'k' << std::get<0>(info.param)
                                << (std::get<1>(info.param) ? "Half" : "Float");
                           return name.str();
                         });

/// Builds and runs one program on `tiles` tiles; `body` adds to the graph and program.
template <class Body, class Check> void runGraph(unsigned tiles, Body &&body, Check &&check) {
  poplar::Device d = convDevice(tiles);
  poplar::Graph graph(d.getTarget());
  poplin::addCodelets(graph);
  popops::addCodelets(graph);
  poplar::program::Sequence prog;
  body(graph, prog);
  poplar::Engine engine(graph, prog);
  engine.load(d);
  check(engine);
}

TEST(Bias, AddBiasAddsPerChannel) {
  const std::size_t B = 2, C = 5, H = 3, W = 4;
  const auto x = randomValues(B * C * H * W, 20), bias = randomValues(C, 21);
  runGraph(
      4,
      [&](poplar::Graph &graph, poplar::program::Sequence &prog) {
        poplar::Tensor acts = userTensor(graph, FLOAT, {B, C, H, W}, "acts");
        poplar::Tensor biases = poplin::createBiases(graph, acts, "biases");
        EXPECT_EQ(biases.shape(), std::vector<std::size_t>{C});
        graph.createHostWrite("x", acts);
        graph.createHostWrite("b", biases);
        graph.createHostRead("x", acts);
        poplin::addBias(graph, acts, biases, prog);
      },
      [&](poplar::Engine &engine) {
        writeValues(engine, "x", FLOAT, x);
        writeValues(engine, "b", FLOAT, bias);
        engine.run();
        const auto got = readValues(engine, "x", FLOAT, x.size());
        for (std::size_t i = 0; i < x.size(); ++i)
          ASSERT_NEAR(got[i], x[i] + bias[i / (H * W) % C], 1e-6) << i;
      });
}

TEST(Bias, BiasUpdateAddsScaledChannelSums) {
  const std::size_t B = 3, C = 4, H = 5, W = 2;
  const auto z = randomValues(B * C * H * W, 22), bias = randomValues(C, 23);
  std::vector<double> sums(C, 0.0);
  for (std::size_t i = 0; i < z.size(); ++i)
    sums[i / (H * W) % C] += z[i];
  for (bool tensorScale : {false, true})
    runGraph(
        4,
        [&](poplar::Graph &graph, poplar::program::Sequence &prog) {
          poplar::Tensor zd = userTensor(graph, FLOAT, {B, C, H, W}, "z");
          poplar::Tensor biases = poplin::createBiases(graph, zd, "biases");
          graph.createHostWrite("z", zd);
          graph.createHostWrite("b", biases);
          graph.createHostRead("b", biases);
          if (tensorScale) {
            poplar::Tensor s = graph.addConstant(FLOAT, {}, -0.5f, "scale");
            graph.setTileMapping(s, 0);
            poplin::convolutionBiasUpdate(graph, zd, biases, s, {}, prog);
          } else {
            poplin::convolutionBiasUpdate(graph, zd, biases, -0.5f, {}, prog);
          }
        },
        [&](poplar::Engine &engine) {
          writeValues(engine, "z", FLOAT, z);
          writeValues(engine, "b", FLOAT, bias);
          engine.run();
          const auto got = readValues(engine, "b", FLOAT, C);
          for (std::size_t c = 0; c < C; ++c)
            ASSERT_NEAR(got[c], bias[c] - 0.5 * sums[c], 1e-5) << c;
        });
}

TEST(Weights, TransposeChansFlipXYMatchesLoop) {
  const std::size_t G = 2, OC = 3, IC = 4, KH = 3, KW = 2;
  const auto w = randomValues(G * OC * IC * KH * KW, 24);
  runGraph(
      4,
      [&](poplar::Graph &graph, poplar::program::Sequence &prog) {
        poplar::Tensor in = userTensor(graph, FLOAT, {G, OC, IC, KH, KW}, "w");
        poplar::Tensor out = userTensor(graph, FLOAT, {G, IC, OC, KH, KW}, "wt");
        graph.createHostWrite("w", in);
        graph.createHostRead("wt", out);
        poplin::weightsTransposeChansFlipXY(graph, in, out, prog);
      },
      [&](poplar::Engine &engine) {
        writeValues(engine, "w", FLOAT, w);
        engine.run();
        const auto got = readValues(engine, "wt", FLOAT, w.size());
        for (std::size_t g = 0; g < G; ++g)
          for (std::size_t ic = 0; ic < IC; ++ic)
            for (std::size_t oc = 0; oc < OC; ++oc)
              for (std::size_t y = 0; y < KH; ++y)
                for (std::size_t x = 0; x < KW; ++x)
                  ASSERT_EQ(got[(((g * IC + ic) * OC + oc) * KH + y) * KW + x],
                            w[(((g * OC + oc) * IC + ic) * KH + (KH - 1 - y)) * KW + (KW - 1 - x)]);
      });
}

} // namespace
