// Shared helpers for the poplin convolution tests: graph runners on small IPU Models, compared
// with the golden convolution reference (tests/reference/include/reference/Convolution.hpp).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Half.hpp>
#include <poplar/IPUModel.hpp>
#include <poplin/ConvUtil.hpp>
#include <poplin/Convolution.hpp>
#include <poplin/codelets.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>

#include <reference/Convolution.hpp>

#include "MatMulTestSupport.hpp"

namespace poplin::testing {

/// Every element of `got` within tol, relative to 1 + |want|, of the reference `want`.
inline void expectClose(const std::vector<float> &got, const std::vector<double> &want, double tol,
                        const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tol * (1.0 + std::abs(want[i]))) << what << " element " << i;
}

/// The parameters as `operator<<` prints them, for failure messages.
inline std::string describe(const ConvParams &p) {
  std::ostringstream os;
  os << p;
  return os.str();
}

using ::reference::forEachProduct;
using ::reference::inputElements;
using ::reference::outputAxis;
using ::reference::outputElements;
using ::reference::product;
using ::reference::referenceForward;
using ::reference::referenceInputGrad;
using ::reference::referenceWeightGrad;
using ::reference::transformedAxis;
using ::reference::weightElements;

/// How a test graph is set up.
struct ConvRun {
  unsigned tiles = 8;
  bool create = true; // createInput/createWeights, else linearly mapped [B][C][F] variables
  unsigned hostThreads = 0;
  poplar::OptionFlags options = {};
};

inline poplar::Device convDevice(unsigned tiles) {
  poplar::IPUModel m;
  m.tilesPerIPU = tiles;
  return m.createDevice();
}

inline poplar::Tensor userTensor(poplar::Graph &graph, const poplar::Type &type,
                                 const std::vector<std::size_t> &shape, const std::string &name) {
  poplar::Tensor t = graph.addVariable(type, shape, name);
  poputil::mapTensorLinearly(graph, t);
  return t;
}

inline void writeValues(poplar::Engine &e, const std::string &handle, const poplar::Type &type,
                        const std::vector<float> &v) {
  if (type == poplar::HALF) {
    std::vector<poplar::half> h(v.begin(), v.end());
    e.writeTensor(handle, h.data(), h.data() + h.size());
  } else {
    e.writeTensor(handle, v.data(), v.data() + v.size());
  }
}

inline std::vector<float> readValues(poplar::Engine &e, const std::string &handle,
                                     const poplar::Type &type, std::size_t n) {
  std::vector<float> out(n);
  if (type == poplar::HALF) {
    std::vector<poplar::half> h(n);
    e.readTensor(handle, h.data(), h.data() + n);
    for (std::size_t i = 0; i < n; ++i)
      out[i] = static_cast<float>(h[i]);
  } else {
    e.readTensor(handle, out.data(), out.data() + n);
  }
  return out;
}

/// Values rounded as HALF would hold them (so references see what the device sees).
inline std::vector<float> halfRounded(std::vector<float> v) {
  for (auto &x : v)
    x = static_cast<float>(poplar::half(x));
  return v;
}

inline std::vector<std::size_t> activationShape(const ConvParams &p, bool input) {
  std::vector<std::size_t> s = {p.batchSize, input ? p.getNumInputChans() : p.getNumOutputChans()};
  const auto f = input ? p.inputFieldShape : p.getOutputFieldShape();
  s.insert(s.end(), f.begin(), f.end());
  return s;
}
inline std::vector<std::size_t> weightShape(const ConvParams &p) {
  std::vector<std::size_t> s = {p.numConvGroups, p.outputChannelsPerConvGroup,
                                p.inputChannelsPerConvGroup};
  s.insert(s.end(), p.kernelShape.begin(), p.kernelShape.end());
  return s;
}

/// Runs the forward convolution; returns out in [B][OC][out fields] order.
inline std::vector<float> runForward(const ConvParams &p, const std::vector<float> &in,
                                     const std::vector<float> &w, const ConvRun &run = {}) {
  poplar::Device d = convDevice(run.tiles);
  poplar::Graph graph(d.getTarget());
  poplin::addCodelets(graph);
  popops::addCodelets(graph);
  poplar::Tensor A = run.create ? poplin::createInput(graph, p, "in", run.options)
                                : userTensor(graph, p.inputType, activationShape(p, true), "in");
  poplar::Tensor W = run.create ? poplin::createWeights(graph, p, "w", run.options)
                                : userTensor(graph, p.inputType, weightShape(p), "w");
  graph.createHostWrite("in", A);
  graph.createHostWrite("w", W);
  poplar::program::Sequence prog;
  poplar::Tensor out = poplin::convolution(graph, A, W, p, false, prog, "conv", run.options);
  graph.createHostRead("out", out);
  poplar::OptionFlags engineOptions;
  if (run.hostThreads)
    engineOptions.set("target.hostThreads", std::to_string(run.hostThreads));
  poplar::Engine engine(graph, prog, engineOptions);
  engine.load(d);
  writeValues(engine, "in", p.inputType, in);
  writeValues(engine, "w", p.inputType, w);
  engine.run();
  return readValues(engine, "out", p.outputType, outputElements(p));
}

/// Runs the input-gradient pass of the forward `p`: convolution(dOut, w, getGradientParams(p),
/// transposeAndFlipWeights = true); returns dIn in [B][IC][fields] order.
inline std::vector<float> runInputGrad(const ConvParams &p, const std::vector<float> &dOut,
                                       const std::vector<float> &w, const ConvRun &run = {}) {
  const ConvParams bwd = poplin::getGradientParams(p);
  poplar::Device d = convDevice(run.tiles);
  poplar::Graph graph(d.getTarget());
  poplin::addCodelets(graph);
  popops::addCodelets(graph);
  poplar::Tensor Z = run.create ? poplin::createInput(graph, bwd, "dOut", run.options)
                                : userTensor(graph, bwd.inputType, activationShape(p, false), "z");
  poplar::Tensor W = run.create ? poplin::createWeights(graph, p, "w", run.options)
                                : userTensor(graph, p.inputType, weightShape(p), "w");
  graph.createHostWrite("z", Z);
  graph.createHostWrite("w", W);
  poplar::program::Sequence prog;
  poplar::Tensor dIn = poplin::convolution(graph, Z, W, bwd, true, prog, "bwd", run.options);
  graph.createHostRead("dIn", dIn);
  poplar::OptionFlags engineOptions;
  if (run.hostThreads)
    engineOptions.set("target.hostThreads", std::to_string(run.hostThreads));
  poplar::Engine engine(graph, prog, engineOptions);
  engine.load(d);
  writeValues(engine, "z", bwd.inputType, dOut);
  writeValues(engine, "w", p.inputType, w);
  engine.run();
  return readValues(engine, "dIn", bwd.outputType, inputElements(p));
}

/// How the weight gradient is obtained in runWeightGrad.
enum class WeightGradMode { DELTAS, UPDATE_FLOAT_SCALE, UPDATE_TENSOR_SCALE };

/// calculateWeightDeltas (returns dW), or convolutionWeightUpdate from w0 with `scale`
/// (returns the updated weights).
inline std::vector<float> runWeightGrad(const ConvParams &p, const std::vector<float> &dOut,
                                        const std::vector<float> &in, WeightGradMode mode,
                                        const std::vector<float> &w0 = {}, float scale = 1.0f,
                                        const ConvRun &run = {}) {
  poplar::Device d = convDevice(run.tiles);
  poplar::Graph graph(d.getTarget());
  poplin::addCodelets(graph);
  popops::addCodelets(graph);
  poplar::Tensor A = run.create ? poplin::createInput(graph, p, "in", run.options)
                                : userTensor(graph, p.inputType, activationShape(p, true), "in");
  poplar::Tensor Z = run.create ? poplin::createConvOutput(graph, p, "z", run.options)
                                : userTensor(graph, p.inputType, activationShape(p, false), "z");
  graph.createHostWrite("in", A);
  graph.createHostWrite("z", Z);
  poplar::program::Sequence prog;
  poplar::Tensor result;
  poplar::Type resultType = p.outputType;
  if (mode == WeightGradMode::DELTAS) {
    result = poplin::calculateWeightDeltas(graph, Z, A, p, prog, "wu", run.options);
  } else {
    result = run.create ? poplin::createWeights(graph, p, "w", run.options)
                        : userTensor(graph, p.inputType, weightShape(p), "w");
    resultType = p.inputType;
    graph.createHostWrite("w", result);
    if (mode == WeightGradMode::UPDATE_FLOAT_SCALE) {
      poplin::convolutionWeightUpdate(graph, Z, result, A, p, scale, prog, "wu", run.options);
    } else {
      poplar::Tensor s = graph.addVariable(poplar::FLOAT, {}, "scale");
      graph.setTileMapping(s, 0);
      graph.createHostWrite("scale", s);
      poplin::convolutionWeightUpdate(graph, Z, result, A, p, s, prog, "wu", run.options);
    }
  }
  graph.createHostRead("result", result);
  poplar::OptionFlags engineOptions;
  if (run.hostThreads)
    engineOptions.set("target.hostThreads", std::to_string(run.hostThreads));
  poplar::Engine engine(graph, prog, engineOptions);
  engine.load(d);
  writeValues(engine, "in", p.inputType, in);
  writeValues(engine, "z", p.inputType, dOut);
  if (mode != WeightGradMode::DELTAS)
    writeValues(engine, "w", p.inputType, w0);
  if (mode == WeightGradMode::UPDATE_TENSOR_SCALE)
    engine.writeTensor("scale", &scale, &scale + 1);
  engine.run();
  return readValues(engine, "result", resultType, weightElements(p));
}

/// The plan report of `p` (reportPlanInfo, or reportWeightUpdatePlanInfo for its weight
/// update) on a `tiles`-tile IPU Model.
inline std::string planReport(const ConvParams &p, bool weightUpdate,
                              const poplar::OptionFlags &options, unsigned tiles) {
  poplar::Device d = convDevice(tiles);
  poplar::Graph graph(d.getTarget());
  std::ostringstream os;
  if (weightUpdate)
    poplin::reportWeightUpdatePlanInfo(os, graph, p, options);
  else
    poplin::reportPlanInfo(os, graph, p, options);
  return os.str();
}

/// Forward, input gradient and weight gradient of `p` on random operands (rounded to HALF when
/// `p` is) against the reference.
inline void expectAllPassesMatch(const ConvParams &p, const ConvRun &run, double tol) {
  auto in = randomValues(inputElements(p), 1), w = randomValues(weightElements(p), 2);
  auto dOut = randomValues(outputElements(p), 3);
  if (p.inputType == poplar::HALF) {
    in = halfRounded(in);
    w = halfRounded(w);
    dOut = halfRounded(dOut);
  }
  const std::string what = describe(p);
  expectClose(runForward(p, in, w, run), referenceForward(p, in, w), tol, "forward " + what);
  expectClose(runInputGrad(p, dOut, w, run), referenceInputGrad(p, dOut, w), tol,
              "input gradient " + what);
  expectClose(runWeightGrad(p, dOut, in, WeightGradMode::DELTAS, {}, 1.0f, run),
              referenceWeightGrad(p, dOut, in), tol, "weight gradient " + what);
}

/// convolutionWeightUpdate from random weights w0 with scale −0.5, by a float and by a tensor
/// scale, against w0 − 0.5 · the reference gradient.
inline void expectWeightUpdateMatches(const ConvParams &p, const ConvRun &run, double tol) {
  const auto dOut = randomValues(outputElements(p), 7), in = randomValues(inputElements(p), 8);
  const auto w0 = randomValues(weightElements(p), 9);
  const auto dW = referenceWeightGrad(p, dOut, in);
  std::vector<double> want(dW.size());
  for (std::size_t i = 0; i < dW.size(); ++i)
    want[i] = w0[i] - 0.5 * dW[i];
  for (auto mode : {WeightGradMode::UPDATE_FLOAT_SCALE, WeightGradMode::UPDATE_TENSOR_SCALE})
    expectClose(runWeightGrad(p, dOut, in, mode, w0, -0.5f, run), want, tol, "update");
}

/// Forward, input gradient and weight gradient give the same bits on 1 and 2 host threads.
inline void expectBitIdenticalForOneAndTwoThreads(const ConvParams &p, ConvRun run) {
  const auto in = randomValues(inputElements(p), 10), w = randomValues(weightElements(p), 11);
  const auto dOut = randomValues(outputElements(p), 12);
  ConvRun one = run, two = run;
  one.hostThreads = 1;
  two.hostThreads = 2;
  EXPECT_EQ(runForward(p, in, w, one), runForward(p, in, w, two));
  EXPECT_EQ(runInputGrad(p, dOut, w, one), runInputGrad(p, dOut, w, two));
  EXPECT_EQ(runWeightGrad(p, dOut, in, WeightGradMode::DELTAS, {}, 1.0f, one),
            runWeightGrad(p, dOut, in, WeightGradMode::DELTAS, {}, 1.0f, two));
}

} // namespace poplin::testing
