// poplin::multiconv against reference/MultiConvolution.hpp: every output of a multi-convolution
// is its own convolution; weight deltas and updates; tensor creation; options and errors.
#include <gtest/gtest.h>

#include <poplar/exceptions.hpp>
#include <poplin/ConvUtil.hpp>
#include <poplin/MultiConvolution.hpp>
#include <poputil/exceptions.hpp>
#include <reference/MultiConvolution.hpp>

#include "LinalgTestSupport.hpp"

using namespace poplin::testing;
using poplar::FLOAT;
using poplar::HALF;

namespace {

poplin::ConvParams paramsOf(const reference::Conv2d &c, const poplar::Type &type) {
  poplin::ConvParams p(type, c.batch, {c.height, c.width}, {c.kernelH, c.kernelW}, c.inChans,
                       c.outChans, c.groups);
  p.inputTransform.paddingLower = {unsigned(c.pad), unsigned(c.pad)};
  p.inputTransform.paddingUpper = {unsigned(c.pad), unsigned(c.pad)};
  p.outputTransform.stride = {unsigned(c.stride), unsigned(c.stride)};
  return p;
}

std::vector<std::size_t> inputShape(const reference::Conv2d &c) {
  return {c.batch, c.groups * c.inChans, c.height, c.width};
}
std::vector<std::size_t> weightShape(const reference::Conv2d &c) {
  return {c.groups, c.outChans, c.inChans, c.kernelH, c.kernelW};
}

/// Three different convolutions: grouped 3x3, strided and padded, and pointwise.
std::vector<reference::Conv2d> threeConvs() {
  reference::Conv2d a, b, c;
  a.batch = 2, a.groups = 2, a.inChans = 3, a.outChans = 4, a.height = 6, a.width = 5;
  a.kernelH = a.kernelW = 3;
  b.batch = 1, b.inChans = 4, b.outChans = 5, b.height = b.width = 7, b.kernelH = 3, b.kernelW = 2,
  b.pad = 1, b.stride = 2;
  c.batch = 3, c.inChans = 6, c.outChans = 2, c.height = 4, c.width = 4;
  return {a, b, c};
}

enum class Creation { ByMultiConv, UserLinear, UserOneTile };

struct MultiRun {
  std::vector<std::vector<double>> in, w, out;
};

MultiRun runForward(const std::vector<reference::Conv2d> &convs, const poplar::Type &type,
                    Creation creation, unsigned hostThreads = 0) {
  LinalgHarness h;
  MultiRun r;
  std::vector<poplin::multiconv::CreateTensorArgs> create;
  for (std::size_t i = 0; i < convs.size(); ++i)
    create.push_back({paramsOf(convs[i], type), {}, "c" + std::to_string(i)});
  std::vector<poplin::multiconv::ConvolutionArgs> args;
  poplin::PlanningCache cache;
  for (std::size_t i = 0; i < convs.size(); ++i) {
    const auto &c = convs[i];
    r.in.push_back(reference::roundTo(type, reference::randomValues(c.inputElements(), 10 + i)));
    r.w.push_back(reference::roundTo(type, reference::randomValues(c.weightElements(), 20 + i)));
    const std::string is = "in" + std::to_string(i), ws = "w" + std::to_string(i);
    poplar::Tensor in, w;
    if (creation == Creation::ByMultiConv) {
      in = h.write(is, poplin::multiconv::createInput(h.graph(), create, unsigned(i), {}, &cache),
                   r.in.back());
      w = h.write(ws, poplin::multiconv::createWeights(h.graph(), create, unsigned(i), {}, &cache),
                  r.w.back());
    } else {
      const Mapping m = creation == Creation::UserOneTile ? Mapping::OneTile : Mapping::Linear;
      in = h.input(is, type, inputShape(c), r.in.back(), m);
      w = h.input(ws, type, weightShape(c), r.w.back(), m);
    }
    args.push_back({in, w, create[i].params, {}});
  }
  const auto outs = poplin::multiconv::convolution(h.graph(), args, false, h.prog(), "multi",
                                                   {{"planType", "serial"}}, &cache);
  EXPECT_EQ(outs.size(), convs.size());
  for (std::size_t i = 0; i < outs.size(); ++i)
    h.output("out" + std::to_string(i), outs[i]);
  auto results = h.run(hostThreads);
  for (std::size_t i = 0; i < outs.size(); ++i)
    r.out.push_back(results["out" + std::to_string(i)]);
  return r;
}

TEST(MultiConvolution, EachOutputIsItsOwnConvolution) {
  const auto convs = threeConvs();
  for (auto creation : {Creation::ByMultiConv, Creation::UserLinear, Creation::UserOneTile}) {
    const auto r = runForward(convs, FLOAT, creation);
    const auto want = reference::multiConvolution(convs, r.in, r.w);
    for (std::size_t i = 0; i < convs.size(); ++i)
      EXPECT_LT(reference::relativeError(r.out[i], want[i]), 1e-6)
          << "convolution " << i << " creation " << int(creation);
  }
}

TEST(MultiConvolution, HalfOutputsAreCloseToTheReference) {
  const auto convs = threeConvs();
  const auto r = runForward(convs, HALF, Creation::ByMultiConv);
  const auto want = reference::multiConvolution(convs, r.in, r.w);
  for (std::size_t i = 0; i < convs.size(); ++i)
    EXPECT_LT(reference::relativeError(r.out[i], want[i]), 3e-3) << "convolution " << i;
}

TEST(MultiConvolution, OneAndTwoHostThreadsGiveIdenticalBits) {
  const auto convs = threeConvs();
  const auto one = runForward(convs, FLOAT, Creation::UserLinear, 1);
  const auto two = runForward(convs, FLOAT, Creation::UserLinear, 2);
  EXPECT_EQ(one.out, two.out);
}

TEST(MultiConvolution, WeightDeltasAndUpdatesMatchTheReference) {
  auto convs = threeConvs();
  convs.pop_back();
  LinalgHarness h;
  std::vector<poplin::multiconv::CalculateWeightDeltasArgs> deltaArgs;
  std::vector<poplin::multiconv::ConvWeightUpdateArgs> updateArgs;
  std::vector<poplin::multiconv::ConvWeightUpdateArgsScalar> scalarArgs;
  std::vector<std::vector<double>> acts, zds, w0;
  auto scale = h.input("scale", FLOAT, {1}, {-0.5});
  for (std::size_t i = 0; i < convs.size(); ++i) {
    const auto &c = convs[i];
    const auto p = paramsOf(c, FLOAT);
    const std::string n = std::to_string(i);
    acts.push_back(reference::roundTo(FLOAT, reference::randomValues(c.inputElements(), 30 + i)));
    zds.push_back(reference::roundTo(FLOAT, reference::randomValues(c.outputElements(), 40 + i)));
    w0.push_back(reference::roundTo(FLOAT, reference::randomValues(c.weightElements(), 50 + i)));
    auto act = h.input("act" + n, FLOAT, inputShape(c), acts.back());
    auto zd = h.input("zd" + n, FLOAT,
                      {c.batch, c.groups * c.outChans, c.outHeight(), c.outWidth()}, zds.back());
    auto wt = h.input("wt" + n, FLOAT, weightShape(c), w0.back());
    auto ws = h.input("ws" + n, FLOAT, weightShape(c), w0.back());
    deltaArgs.push_back({zd, act, p, {}});
    updateArgs.push_back({zd, wt, act, scale, p, {}});
    scalarArgs.push_back({zd, ws, act, 0.25f, p, {}});
    h.output("wt" + n + "out", wt);
    h.output("ws" + n + "out", ws);
  }
  const auto deltas = poplin::multiconv::calculateWeightDeltas(h.graph(), deltaArgs, h.prog());
  for (std::size_t i = 0; i < deltas.size(); ++i)
    h.output("dw" + std::to_string(i), deltas[i]);
  poplin::multiconv::convolutionWeightUpdate(h.graph(), updateArgs, h.prog(), "wu");
  poplin::multiconv::convolutionWeightUpdate(h.graph(), scalarArgs, h.prog(), "wuScalar");
  auto out = h.run();
  for (std::size_t i = 0; i < convs.size(); ++i) {
    const std::string n = std::to_string(i);
    const auto dw = reference::weightDeltas(convs[i], zds[i], acts[i]);
    EXPECT_LT(reference::relativeError(out["dw" + n], dw), 1e-6) << "deltas " << i;
    std::vector<double> wt(dw.size()), ws(dw.size());
    for (std::size_t k = 0; k < dw.size(); ++k) {
      wt[k] = w0[i][k] - 0.5 * dw[k];
      ws[k] = w0[i][k] + 0.25 * dw[k];
    }
    EXPECT_LT(reference::relativeError(out["wt" + n + "out"], wt), 1e-6) << "update " << i;
    EXPECT_LT(reference::relativeError(out["ws" + n + "out"], ws), 1e-6) << "scalar " << i;
  }
}

TEST(MultiConvolution, TransposedFlippedWeightsMatchTheSingleConvolution) {
  const auto convs = threeConvs();
  LinalgHarness h;
  std::vector<poplin::multiconv::ConvolutionArgs> flipped, viaFlag;
  std::vector<poplar::Tensor> weightsIn;
  for (std::size_t i = 0; i < 2; ++i) {
    const auto &c = convs[i];
    // The input gradient of convolution i: its output gradient through the forward weights.
    const auto fwd = paramsOf(c, FLOAT);
    const auto bwd = poplin::getGradientParams(fwd);
    const std::string n = std::to_string(i);
    auto zd =
        h.input("zd" + n, FLOAT, {c.batch, c.groups * c.outChans, c.outHeight(), c.outWidth()},
                reference::randomValues(c.outputElements(), 60 + i));
    auto w = h.input("w" + n, FLOAT, weightShape(c),
                     reference::randomValues(c.weightElements(), 70 + i));
    auto arranged = poplin::createWeights(h.graph(), bwd, "bwdWeights" + n);
    flipped.push_back({zd, arranged, bwd, {}});
    viaFlag.push_back({zd, w, bwd, {}});
    weightsIn.push_back(w);
  }
  poplin::multiconv::weightsTransposeChansFlipXY(h.graph(), flipped, weightsIn, h.prog());
  const auto a = poplin::multiconv::convolution(h.graph(), flipped, false, h.prog(), "a");
  const auto b = poplin::multiconv::convolution(h.graph(), viaFlag, true, h.prog(), "b");
  for (std::size_t i = 0; i < 2; ++i) {
    h.output("a" + std::to_string(i), a[i]);
    h.output("b" + std::to_string(i), b[i]);
  }
  auto out = h.run();
  for (std::size_t i = 0; i < 2; ++i)
    EXPECT_LT(reference::relativeError(out["a" + std::to_string(i)], out["b" + std::to_string(i)]),
              1e-6);
}

TEST(MultiConvolution, BadIndexCountOrOptionThrows) {
  const auto convs = threeConvs();
  LinalgHarness h;
  std::vector<poplin::multiconv::CreateTensorArgs> create{{paramsOf(convs[0], FLOAT), {}, "x"}};
  try {
    poplin::multiconv::createWeights(h.graph(), create, 1u);
    FAIL() << "expected poplibs_error";
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find("weightsIndex 1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(poplin::multiconv::createInput(h.graph(), create, 3u), poputil::poplibs_error);
  EXPECT_THROW(poplin::multiconv::createInput(h.graph(), create, {{"planType", "diagonal"}}),
               poplar::invalid_option);
  EXPECT_THROW(poplin::multiconv::createInput(h.graph(), create, {{"planTipe", "serial"}}),
               poplar::invalid_option);
  EXPECT_THROW(poplin::multiconv::createInput(h.graph(), create, {{"cycleBackOff", "1.5"}}),
               poplar::invalid_option);
  EXPECT_NO_THROW(poplin::multiconv::createInput(
      h.graph(), create, {{"perConvReservedTiles", "10"}, {"cycleBackOff", "0.3"}}));
  try {
    poplin::multiconv::weightsTransposeChansFlipXY(h.graph(), {}, {poplar::Tensor{}}, h.prog());
    FAIL() << "expected poplibs_error";
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find("weightsOut has 0"), std::string::npos) << e.what();
  }
}

} // namespace
