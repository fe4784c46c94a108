// popnn::gru against reference/Gru.hpp (forward outputs; input, initial-state and weight
// gradients) with the reset gate before and after the recurrent weights, in FLOAT and HALF on
// one tile and spread over 16; the reference against central finite differences; cell orders;
// last-output-only mode; host-thread independence; argument errors; a small model that trains.
#include <algorithm>
#include <cmath>
#include <iostream>

#include <poplar/exceptions.hpp>
#include <popnn/Gru.hpp>
#include <popops/ElementWise.hpp>
#include <popops/ScaledAdd.hpp>
#include <poputil/exceptions.hpp>
#include <reference/Gru.hpp>

#include "PopnnTestHarness.hpp"

using namespace popnn_test;
using poplar::Tensor;
namespace gru = popnn::gru;

namespace {

reference::GruShape shapeFor(bool resetAfter) { return {5, 3, 4, 6, resetAfter}; }

struct Problem {
  reference::GruShape s;
  std::vector<double> x, h0, Wi, Wo, b, dOut;
  Problem(const reference::GruShape &shape, const poplar::Type &type, unsigned seed) : s(shape) {
    auto r = [&](std::size_t n, unsigned k, double scale) {
      return roundTo(type, randomValues(n, seed * 10 + k, -scale, scale));
    };
    x = r(s.T * s.B * s.I, 1, 1.0);
    h0 = r(s.B * s.H, 2, 0.5);
    Wi = r(3 * s.I * s.H, 3, 0.5);
    Wo = r(3 * s.H * s.H, 4, 0.5);
    b = r(3 * s.H * (s.resetAfter ? 2 : 1), 5, 0.5);
    dOut = r(s.T * s.B * s.H, 6, 1.0);
  }
};

std::vector<double> permuteUnits(const std::vector<double> &v,
                                 const std::vector<BasicGruCellUnit> &order) {
  const std::size_t per = v.size() / 3;
  std::vector<double> out(v.size());
  for (std::size_t j = 0; j < 3; ++j)
    std::copy_n(v.begin() + order[j] * per, per, out.begin() + j * per);
  return out;
}
std::vector<double> unpermuteUnits(const std::vector<double> &v,
                                   const std::vector<BasicGruCellUnit> &order) {
  const std::size_t per = v.size() / 3;
  std::vector<double> out(v.size());
  for (std::size_t j = 0; j < 3; ++j)
    std::copy_n(v.begin() + j * per, per, out.begin() + order[j] * per);
  return out;
}

struct Device {
  Tensor x, h0;
  gru::GruWeights w;
};

gru::GruParams paramsFor(const poplar::Type &type, const reference::GruShape &s) {
  gru::GruParams p(type, s.B, s.T, {s.I, s.H});
  p.resetAfter = s.resetAfter;
  return p;
}

Device addInputs(Harness &h, const gru::GruParams &params, const Problem &p) {
  const auto t = params.rnn.dataType;
  const auto &s = p.s;
  Device d;
  d.x = h.input(t, {s.T, s.B, s.I}, p.x, "x");
  d.h0 = h.input(t, {s.B, s.H}, p.h0, "h0");
  d.w.inputWeights = h.input(t, {3, s.I, s.H}, permuteUnits(p.Wi, params.cellOrder), "Wi");
  d.w.outputWeights = h.input(t, {3, s.H, s.H}, permuteUnits(p.Wo, params.cellOrder), "Wo");
  std::vector<std::size_t> biasShape{3, s.H};
  if (s.resetAfter)
    biasShape = {3, 2, s.H};
  d.w.biases = h.input(t, biasShape, permuteUnits(p.b, params.cellOrder), "b");
  return d;
}

struct Case {
  poplar::Type type;
  Layout layout;
  bool resetAfter;
};

std::string caseName(const testing::TestParamInfo<Case> &info) {
  return std::string(info.param.type == poplar::HALF ? "half_" : "float_") +
         layoutName(info.param.layout) + (info.param.resetAfter ? "_resetAfter" : "_resetBefore");
}

double atolFor(const poplar::Type &t) { return t == poplar::HALF ? 3e-2 : 2e-5; }
double rtolFor(const poplar::Type &t) { return t == poplar::HALF ? 3e-2 : 1e-4; }

class GruCases : public testing::TestWithParam<Case> {};

TEST_P(GruCases, ForwardBackwardAndWeightUpdateMatchReference) {
  const auto [type, layout, resetAfter] = GetParam();
  const auto s = shapeFor(resetAfter);
  const Problem p(s, type, 1);
  Harness h(layout);
  auto &g = h.graph();
  const auto params = paramsFor(type, s);
  const Device d = addInputs(h, params, p);
  Tensor inter;
  Tensor out = gru::gruFwd(g, params, d.h0, d.x, d.w, &inter, h.prog(), "gru");
  Tensor dOut = h.input(type, {s.T, s.B, s.H}, p.dOut, "dOut");
  Tensor dx;
  gru::GruWeights dw;
  Tensor dh0 =
      gru::gruBwdWithWU(g, params, h.prog(), d.h0, inter, d.w, d.x, out, dOut, &dx, dw, "bwd", {},
                        nullptr);
  h.output("out", out);
  h.output("dx", dx);
  h.output("dh0", dh0);
  h.output("dWi", dw.inputWeights);
  h.output("dWo", dw.outputWeights);
  h.output("db", dw.biases);
  const auto r = h.run();
  const auto fw = reference::gruForward(s, p.x, p.h0, p.Wi, p.Wo, p.b);
  const auto want = reference::gruBackward(s, p.x, p.h0, p.Wi, p.Wo, p.b, p.dOut);
  expectClose(r.at("out"), fw.output, atolFor(type), rtolFor(type), "outputs");
  const double atol = atolFor(type) * (type == poplar::HALF ? 4 : 1);
  expectClose(r.at("dx"), want.dx, atol, rtolFor(type), "input gradient");
  expectClose(r.at("dh0"), want.dh0, atol, rtolFor(type), "initial output gradient");
  expectClose(r.at("dWi"), want.dWi, atol, rtolFor(type), "input weights gradient");
  expectClose(r.at("dWo"), want.dWo, atol, rtolFor(type), "recurrent weights gradient");
  expectClose(r.at("db"), want.db, atol, rtolFor(type), "bias gradient");
}

INSTANTIATE_TEST_SUITE_P(Gru, GruCases,
                         testing::Values(Case{poplar::FLOAT, Layout::SINGLE_TILE, false},
                                         Case{poplar::FLOAT, Layout::MULTI_TILE, false},
                                         Case{poplar::FLOAT, Layout::SINGLE_TILE, true},
                                         Case{poplar::FLOAT, Layout::MULTI_TILE, true},
                                         Case{poplar::HALF, Layout::SINGLE_TILE, false},
                                         Case{poplar::HALF, Layout::MULTI_TILE, true}),
                         caseName);

TEST(Gru, ReferenceGradientsMatchCentralFiniteDifferences) {
  for (bool resetAfter : {false, true}) {
    const reference::GruShape s{3, 2, 2, 3, resetAfter};
    const Problem p(s, poplar::FLOAT, 2);
    const auto g = reference::gruBackward(s, p.x, p.h0, p.Wi, p.Wo, p.b, p.dOut);
    auto loss = [&](const std::vector<double> &x, const std::vector<double> &h0,
                    const std::vector<double> &Wi, const std::vector<double> &Wo,
                    const std::vector<double> &b) {
      return dot(reference::gruForward(s, x, h0, Wi, Wo, b).output, p.dOut);
    };
    const std::string tag = resetAfter ? " (resetAfter)" : " (reset before)";
    expectClose(finiteDifference([&](auto &v) { return loss(v, p.h0, p.Wi, p.Wo, p.b); }, p.x),
                g.dx, 1e-6, 1e-5, "dx" + tag);
    expectClose(finiteDifference([&](auto &v) { return loss(p.x, v, p.Wi, p.Wo, p.b); }, p.h0),
                g.dh0, 1e-6, 1e-5, "dh0" + tag);
    expectClose(finiteDifference([&](auto &v) { return loss(p.x, p.h0, v, p.Wo, p.b); }, p.Wi),
                g.dWi, 1e-6, 1e-5, "dWi" + tag);
    expectClose(finiteDifference([&](auto &v) { return loss(p.x, p.h0, p.Wi, v, p.b); }, p.Wo),
                g.dWo, 1e-6, 1e-5, "dWo" + tag);
    expectClose(finiteDifference([&](auto &v) { return loss(p.x, p.h0, p.Wi, p.Wo, v); }, p.b),
                g.db, 1e-6, 1e-5, "db" + tag);
  }
}

TEST(Gru, DeviceGradientsMatchCentralFiniteDifferencesOfTheDeviceForward) {
  const reference::GruShape s{3, 2, 2, 3, true};
  const Problem p(s, poplar::FLOAT, 3);
  const auto params = paramsFor(poplar::FLOAT, s);
  auto forward = [&](const std::vector<double> &h0) {
    Harness h(Layout::SINGLE_TILE);
    Problem q = p;
    q.h0 = h0;
    const Device d = addInputs(h, params, q);
    h.output("out", gru::gruFwd(h.graph(), params, d.h0, d.x, d.w, nullptr, h.prog()));
    return dot(h.run().at("out"), p.dOut);
  };
  Harness h(Layout::SINGLE_TILE);
  const Device d = addInputs(h, params, p);
  Tensor inter;
  Tensor out = gru::gruFwd(h.graph(), params, d.h0, d.x, d.w, &inter, h.prog());
  Tensor dOut = h.input(poplar::FLOAT, {s.T, s.B, s.H}, p.dOut, "dOut");
  h.output("dh0", gru::gruBwd(h.graph(), params, h.prog(), d.h0, inter, d.w, d.x, out, dOut,
                              nullptr, nullptr, {}, {}, nullptr));
  expectClose(h.run().at("dh0"), finiteDifference(forward, p.h0, 1e-2), 2e-3, 2e-2,
              "dh0 vs finite differences");
}

TEST(Gru, CellOrderAndLastOutputOnly) {
  // Weights in the order {UPDATE, RESET, CANDIDATE}, only the last output used.
  const auto s = shapeFor(true);
  const Problem p(s, poplar::FLOAT, 4);
  auto params = paramsFor(poplar::FLOAT, s);
  params.cellOrder = {BASIC_GRU_CELL_UPDATE_GATE, BASIC_GRU_CELL_RESET_GATE,
                      BASIC_GRU_CELL_CANDIDATE};
  params.outputFullSequence = false;
  Harness h(Layout::MULTI_TILE);
  const Device d = addInputs(h, params, p);
  Tensor inter;
  Tensor out = gru::gruFwd(h.graph(), params, d.h0, d.x, d.w, &inter, h.prog());
  ASSERT_EQ(out.shape(), (std::vector<std::size_t>{s.B, s.H}));
  const std::vector<double> dLast(p.dOut.begin(), p.dOut.begin() + s.B * s.H);
  Tensor dOut = h.input(poplar::FLOAT, {s.B, s.H}, dLast, "dOut");
  gru::GruWeights dw;
  gru::gruBwdWithWU(h.graph(), params, h.prog(), d.h0, inter, d.w, d.x, out, dOut, nullptr, dw,
                    {}, {}, nullptr);
  h.output("out", out);
  h.output("db", dw.biases);
  h.output("dWo", dw.outputWeights);
  const auto r = h.run();
  std::vector<double> dSeq(p.dOut.size(), 0.0);
  std::copy(dLast.begin(), dLast.end(), dSeq.end() - dLast.size());
  const auto fw = reference::gruForward(s, p.x, p.h0, p.Wi, p.Wo, p.b);
  const auto want = reference::gruBackward(s, p.x, p.h0, p.Wi, p.Wo, p.b, dSeq);
  expectClose(r.at("out"), std::vector<double>(fw.output.end() - dLast.size(), fw.output.end()),
              2e-5, 1e-4, "last output");
  expectClose(unpermuteUnits(r.at("db"), params.cellOrder), want.db, 2e-5, 1e-4, "bias grad");
  expectClose(unpermuteUnits(r.at("dWo"), params.cellOrder), want.dWo, 2e-5, 1e-4, "dWo");
}

std::map<std::string, std::vector<double>> runWithThreads(unsigned threads) {
  const auto s = shapeFor(false);
  const Problem p(s, poplar::FLOAT, 5);
  Harness h(Layout::MULTI_TILE);
  const auto params = paramsFor(poplar::FLOAT, s);
  const Device d = addInputs(h, params, p);
  Tensor inter;
  Tensor out = gru::gruFwd(h.graph(), params, d.h0, d.x, d.w, &inter, h.prog());
  Tensor dOut = h.input(poplar::FLOAT, {s.T, s.B, s.H}, p.dOut, "dOut");
  Tensor dx;
  gru::GruWeights dw;
  h.output("dh0", gru::gruBwdWithWU(h.graph(), params, h.prog(), d.h0, inter, d.w, d.x, out,
                                    dOut, &dx, dw, {}, {}, nullptr));
  h.output("out", out);
  h.output("dx", dx);
  h.output("dWo", dw.outputWeights);
  h.output("db", dw.biases);
  poplar::OptionFlags opts;
  opts.set("target.hostThreads", std::to_string(threads));
  return h.run(1, opts);
}

TEST(Gru, ResultsAreBitIdenticalForOneAndTwoHostThreads) {
  const auto one = runWithThreads(1), two = runWithThreads(2);
  for (const auto &[name, values] : one)
    EXPECT_EQ(two.at(name), values) << name;
}

TEST(Gru, WrongShapesTypesAndOptionsAreRejectedByName) {
  Harness h(Layout::SINGLE_TILE);
  auto &g = h.graph();
  gru::GruParams params(poplar::FLOAT, 2, 3, {4, 5});
  params.resetAfter = true;
  auto w = gru::createWeights(g, params, "w");
  EXPECT_EQ(w.biases.shape(), (std::vector<std::size_t>{3, 2, 5}));
  Tensor init = gru::createInitialState(g, params, "init", {}, nullptr);
  Tensor in = gru::createInput(g, params, "in");
  auto expectError = [](auto &&fn, const std::string &needle) {
    try {
      fn();
      ADD_FAILURE() << "no exception; expected one naming " << needle;
    } catch (const poputil::poplibs_error &e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  auto before = params;
  before.resetAfter = false;
  expectError([&] { gru::gruFwd(g, before, init, in, w, nullptr, h.prog()); }, "'weights.biases'");
  Tensor badInit = g.addVariable(poplar::FLOAT, {5, 2}, "badInit");
  expectError([&] { gru::gruFwd(g, params, badInit, in, w, nullptr, h.prog()); }, "'stateInit'");
  auto badOrder = params;
  badOrder.cellOrder = {BASIC_GRU_CELL_RESET_GATE, BASIC_GRU_CELL_UPDATE_GATE};
  expectError([&] { gru::gruFwd(g, badOrder, init, in, w, nullptr, h.prog()); }, "cellOrder");
  Tensor inter;
  Tensor out = gru::gruFwd(g, params, init, in, w, &inter, h.prog());
  expectError(
      [&] {
        gru::gruBwd(g, params, h.prog(), init, inter.slice(0, 2, 0), w, in, out, out, nullptr,
                    nullptr, {}, {}, nullptr);
      },
      "'fwdIntermediatesSeq'");
  EXPECT_THROW(gru::gruFwd(g, params, init, in, w, nullptr, h.prog(), {},
                           {{"availableMemoryProportion", "2"}}),
               poplar::invalid_option);
}

TEST(Gru, SequenceModelLearnsTheSignOfARunningSum) {
  constexpr std::size_t N = 32, T = 6, I = 1, H = 8;
  constexpr unsigned kSteps = 150;
  constexpr float kRate = 0.5f;
  const reference::GruShape s{T, N, I, H, true};
  const auto x = randomValues(T * N * I, 81, -1.0, 1.0);
  std::vector<double> target(N * H, 0.0), mask(N * H, 0.0);
  for (std::size_t n = 0; n < N; ++n) {
    double sum = 0;
    for (std::size_t t = 0; t < T; ++t)
      sum += x[t * N + n];
    target[n * H] = sum > 0 ? 0.8 : -0.8;
    mask[n * H] = 1;
  }
  const auto Wi = randomValues(3 * I * H, 82, -0.5, 0.5);
  const auto Wo = randomValues(3 * H * H, 83, -0.3, 0.3);
  const std::vector<double> b(3 * 2 * H, 0.0), zeros(N * H, 0.0);
  auto loss = [&](const std::vector<double> &last) {
    double l = 0;
    for (std::size_t n = 0; n < N; ++n)
      l += (last[n * H] - target[n * H]) * (last[n * H] - target[n * H]);
    return l / N;
  };
  const auto before = reference::gruForward(s, x, zeros, Wi, Wo, b);
  const double initialLoss =
      loss(std::vector<double>(before.output.end() - N * H, before.output.end()));

  Harness h(Layout::MULTI_TILE);
  auto &g = h.graph();
  auto params = paramsFor(poplar::FLOAT, s);
  params.outputFullSequence = false;
  gru::GruWeights w{h.input(poplar::FLOAT, {3, I, H}, Wi, "Wi"),
                    h.input(poplar::FLOAT, {3, H, H}, Wo, "Wo"),
                    h.input(poplar::FLOAT, {3, 2, H}, b, "b")};
  Tensor in = h.input(poplar::FLOAT, {T, N, I}, x, "x");
  Tensor h0 = h.input(poplar::FLOAT, {N, H}, zeros, "h0");
  Tensor y = h.input(poplar::FLOAT, {N, H}, target, "y");
  Tensor m = h.input(poplar::FLOAT, {N, H}, mask, "mask");
  poplar::program::Sequence step;
  Tensor inter;
  Tensor out = gru::gruFwd(g, params, h0, in, w, &inter, step, "train/fwd");
  using namespace popops::expr;
  Tensor dOut = popops::map(g, _3 * (_1 - _2) * (2.0f / N), {out, y, m}, step, "train/lossGrad");
  gru::GruWeights dw;
  gru::gruBwdWithWU(g, params, step, h0, inter, w, in, out, dOut, nullptr, dw, "train/bwd", {},
                    nullptr);
  popops::scaledAddTo(g, w.inputWeights, dw.inputWeights, -kRate, step, "train/sgdWi");
  popops::scaledAddTo(g, w.outputWeights, dw.outputWeights, -kRate, step, "train/sgdWo");
  popops::scaledAddTo(g, w.biases, dw.biases, -kRate, step, "train/sgdB");
  h.prog().add(poplar::program::Repeat(kSteps, step));
  h.output("out", gru::gruFwd(g, params, h0, in, w, nullptr, h.prog(), "eval"));
  const double finalLoss = loss(h.run().at("out"));
  std::cout << "GRU running-sign loss " << initialLoss << " -> " << finalLoss << "\n";
  EXPECT_LT(finalLoss, initialLoss / 5);
}

} // namespace
