// Shared helpers for the poplin convolution tests: a naive double-precision reference of the
// full ConvParams semantics (built by materialising each transformed axis as a list of source
// indices, independently of poplin's own index arithmetic) and graph runners on small IPU
// Models.
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

/// One axis after an input transform: the source index of each element, or -1 for a zero.
inline std::vector<long> transformedAxis(std::size_t size, const ConvParams::InputTransform &t,
                                         unsigned d) {
  std::vector<long> axis;
  for (std::size_t i = t.truncationLower[d]; i + t.truncationUpper[d] < size; ++i) {
    if (!axis.empty())
      axis.insert(axis.end(), t.dilation[d] - 1, -1);
    axis.push_back(long(i));
  }
  axis.insert(axis.begin(), t.paddingLower[d], -1);
  axis.insert(axis.end(), t.paddingUpper[d], -1);
  if (t.flip[d])
    std::reverse(axis.begin(), axis.end());
  return axis;
}

/// Each final output position's raw (untransformed) output position, or -1 for padding.
inline std::vector<long> outputAxis(std::size_t rawSize, const ConvParams::OutputTransform &t,
                                    unsigned d) {
  std::vector<long> axis(t.paddingLower[d], -1);
  for (std::size_t r = t.truncationLower[d]; r + t.truncationUpper[d] < rawSize; r += t.stride[d])
    axis.push_back(long(r));
  axis.insert(axis.end(), t.paddingUpper[d], -1);
  return axis;
}

/// Calls f(inIndex, weightIndex, outIndex) for every product of the convolution (row-major
/// indices into in [B][G*IC][fields], weights [G][OC][IC][kernel], out [B][G*OC][out fields]).
template <class F> void forEachProduct(const ConvParams &p, F &&f) {
  const unsigned dims = unsigned(p.getNumFieldDims());
  std::array<std::vector<long>, 3> inAxis, kAxis, outAx;
  std::array<std::size_t, 3> inSize{1, 1, 1}, kSize{1, 1, 1}, outSize{1, 1, 1};
  for (unsigned d = 0; d < 3; ++d) {
    if (d < dims) {
      inAxis[d] = transformedAxis(p.inputFieldShape[d], p.inputTransform, d);
      kAxis[d] = transformedAxis(p.kernelShape[d], p.kernelTransform, d);
      outAx[d] = outputAxis(inAxis[d].size() - kAxis[d].size() + 1, p.outputTransform, d);
      inSize[d] = p.inputFieldShape[d];
      kSize[d] = p.kernelShape[d];
      outSize[d] = outAx[d].size();
    } else {
      inAxis[d] = kAxis[d] = outAx[d] = {0};
    }
  }
  const std::size_t G = p.numConvGroups, IC = p.inputChannelsPerConvGroup;
  const std::size_t OC = p.outputChannelsPerConvGroup;
  const std::size_t inField = inSize[0] * inSize[1] * inSize[2];
  const std::size_t kField = kSize[0] * kSize[1] * kSize[2];
  const std::size_t outField = outSize[0] * outSize[1] * outSize[2];
  for (std::size_t b = 0; b < p.batchSize; ++b)
    for (std::size_t g = 0; g < G; ++g)
      for (std::size_t oc = 0; oc < OC; ++oc)
        for (std::size_t o0 = 0; o0 < outSize[0]; ++o0)
          for (std::size_t o1 = 0; o1 < outSize[1]; ++o1)
            for (std::size_t o2 = 0; o2 < outSize[2]; ++o2) {
              const long r0 = outAx[0][o0], r1 = outAx[1][o1], r2 = outAx[2][o2];
              if (r0 < 0 || r1 < 0 || r2 < 0)
                continue;
              const std::size_t outIndex =
                  (b * G * OC + g * OC + oc) * outField + (o0 * outSize[1] + o1) * outSize[2] + o2;
              for (std::size_t j0 = 0; j0 < kAxis[0].size(); ++j0)
                for (std::size_t j1 = 0; j1 < kAxis[1].size(); ++j1)
                  for (std::size_t j2 = 0; j2 < kAxis[2].size(); ++j2) {
                    const long k0 = kAxis[0][j0], k1 = kAxis[1][j1], k2 = kAxis[2][j2];
                    const long i0 = inAxis[0][r0 + j0], i1 = inAxis[1][r1 + j1],
                               i2 = inAxis[2][r2 + j2];
                    if (k0 < 0 || k1 < 0 || k2 < 0 || i0 < 0 || i1 < 0 || i2 < 0)
                      continue;
                    for (std::size_t ic = 0; ic < IC; ++ic) {
                      const std::size_t inIndex = (b * G * IC + g * IC + ic) * inField +
                                                  (i0 * inSize[1] + i1) * inSize[2] + i2;
                      const std::size_t wIndex =
                          ((g * OC + oc) * IC + ic) * kField + (k0 * kSize[1] + k1) * kSize[2] + k2;
                      f(inIndex, wIndex, outIndex);
                    }
                  }
            }
}

inline std::size_t product(const std::vector<std::size_t> &v) {
  std::size_t n = 1;
  for (auto x : v)
    n *= x;
  return n;
}
inline std::size_t inputElements(const ConvParams &p) {
  return p.batchSize * p.getNumInputChans() * product(p.inputFieldShape);
}
inline std::size_t weightElements(const ConvParams &p) {
  return p.numConvGroups * p.inputChannelsPerConvGroup * p.outputChannelsPerConvGroup *
         product(p.kernelShape);
}
inline std::size_t outputElements(const ConvParams &p) {
  return p.batchSize * p.getNumOutputChans() * product(p.getOutputFieldShape());
}

inline std::vector<double> referenceForward(const ConvParams &p, const std::vector<float> &in,
                                            const std::vector<float> &w) {
  std::vector<double> out(outputElements(p), 0.0);
  forEachProduct(p, [&](std::size_t i, std::size_t k, std::size_t o) {
    out[o] += double(in[i]) * double(w[k]);
  });
  return out;
}
inline std::vector<double> referenceInputGrad(const ConvParams &p, const std::vector<float> &dOut,
                                              const std::vector<float> &w) {
  std::vector<double> dIn(inputElements(p), 0.0);
  forEachProduct(p, [&](std::size_t i, std::size_t k, std::size_t o) {
    dIn[i] += double(dOut[o]) * double(w[k]);
  });
  return dIn;
}
inline std::vector<double> referenceWeightGrad(const ConvParams &p, const std::vector<float> &dOut,
                                               const std::vector<float> &in) {
  std::vector<double> dW(weightElements(p), 0.0);
  forEachProduct(p, [&](std::size_t i, std::size_t k, std::size_t o) {
    dW[k] += double(dOut[o]) * double(in[i]);
  });
  return dW;
}

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
