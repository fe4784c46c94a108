// popnn::lstm against reference/Lstm.hpp (forward outputs and cell states; input, initial-state
// and weight gradients) in FLOAT and HALF on one tile and spread over 16, the reference against
// central finite differences, cell orders, last-output-only mode, host-thread independence,
// argument errors and a small sequence model that learns the sign of a running sum.
#include <algorithm>
#include <cmath>
#include <iostream>

#include <poplar/exceptions.hpp>
#include <popnn/Lstm.hpp>
#include <popops/ElementWise.hpp>
#include <popops/ScaledAdd.hpp>
#include <poputil/exceptions.hpp>
#include <reference/Lstm.hpp>

#include "PopnnTestHarness.hpp"

using namespace popnn_test;
using poplar::Tensor;
namespace lstm = popnn::lstm;

namespace {

const reference::LstmShape kShape{5, 3, 4, 6};

/// Host data of one LSTM problem (weights in PopLibs' default cell order).
struct Problem {
  reference::LstmShape s;
  std::vector<double> x, h0, c0, Wi, Wo, b, dOut, dcLast;
  Problem(const reference::LstmShape &shape, const poplar::Type &type, unsigned seed)
      : s(shape) {
    auto r = [&](std::size_t n, unsigned k, double scale) {
      auto v = randomValues(n, seed * 10 + k, -scale, scale);
      return roundTo(type, v);
    };
    x = r(s.T * s.B * s.I, 1, 1.0);
    h0 = r(s.B * s.H, 2, 0.5);
    c0 = r(s.B * s.H, 3, 0.5);
    Wi = r(4 * s.I * s.H, 4, 0.5);
    Wo = r(4 * s.H * s.H, 5, 0.5);
    b = r(4 * s.H, 6, 0.5);
    dOut = r(s.T * s.B * s.H, 7, 1.0);
    dcLast = r(s.B * s.H, 8, 1.0);
  }
};

/// The device graph of one problem: inputs registered in the harness, weights in `order`.
struct Device {
  Tensor x;
  lstm::LstmState init;
  lstm::LstmWeights w;
};

/// `v` [4][rest] from the default order to `order` (slice j holds unit order[j]).
std::vector<double> permuteUnits(const std::vector<double> &v,
                                 const std::vector<BasicLstmCellUnit> &order) {
  const std::size_t per = v.size() / 4;
  std::vector<double> out(v.size());
  for (std::size_t j = 0; j < 4; ++j)
    std::copy_n(v.begin() + order[j] * per, per, out.begin() + j * per);
  return out;
}
std::vector<double> unpermuteUnits(const std::vector<double> &v,
                                   const std::vector<BasicLstmCellUnit> &order) {
  const std::size_t per = v.size() / 4;
  std::vector<double> out(v.size());
  for (std::size_t j = 0; j < 4; ++j)
    std::copy_n(v.begin() + j * per, per, out.begin() + order[j] * per);
  return out;
}

Device addInputs(Harness &h, const lstm::LstmParams &params, const Problem &p) {
  const auto t = params.rnn.dataType;
  const auto &s = p.s;
  Device d;
  d.x = h.input(t, {s.T, s.B, s.I}, p.x, "x");
  d.init.output = h.input(t, {s.B, s.H}, p.h0, "h0");
  d.init.cellState = h.input(t, {s.B, s.H}, p.c0, "c0");
  d.w.inputWeights = h.input(t, {4, s.I, s.H}, permuteUnits(p.Wi, params.cellOrder), "Wi");
  d.w.outputWeights = h.input(t, {4, s.H, s.H}, permuteUnits(p.Wo, params.cellOrder), "Wo");
  d.w.biases = h.input(t, {4, s.H}, permuteUnits(p.b, params.cellOrder), "b");
  return d;
}

struct Case {
  poplar::Type type;
  Layout layout;
};

std::string caseName(const testing::TestParamInfo<Case> &info) {
  return std::string(info.param.type == poplar::HALF ? "half_" : "float_") +
         layoutName(info.param.layout);
}

class LstmCases : public testing::TestWithParam<Case> {};

double atolFor(const poplar::Type &t) { return t == poplar::HALF ? 3e-2 : 2e-5; }
double rtolFor(const poplar::Type &t) { return t == poplar::HALF ? 3e-2 : 1e-4; }

TEST_P(LstmCases, ForwardMatchesReferenceOutputsAndCellStates) {
  const auto [type, layout] = GetParam();
  const Problem p(kShape, type, 1);
  Harness h(layout);
  lstm::LstmParams params(type, kShape.B, kShape.T, {kShape.I, kShape.H});
  const Device d = addInputs(h, params, p);
  Tensor inter;
  auto [out, lastCell] =
      lstm::lstmFwd(h.graph(), params, d.init, d.x, d.w, &inter, h.prog(), "lstm");
  h.output("out", out);
  h.output("lastCell", lastCell);
  const auto r = h.run();
  const auto want = reference::lstmForward(kShape, p.x, p.h0, p.c0, p.Wi, p.Wo, p.b);
  expectClose(r.at("out"), want.output, atolFor(type), rtolFor(type), "outputs");
  const std::vector<double> last(want.cell.end() - kShape.B * kShape.H, want.cell.end());
  expectClose(r.at("lastCell"), last, atolFor(type), rtolFor(type), "last cell state");
}

TEST_P(LstmCases, BackwardAndWeightUpdateMatchReference) {
  const auto [type, layout] = GetParam();
  const Problem p(kShape, type, 2);
  Harness h(layout);
  auto &g = h.graph();
  lstm::LstmParams params(type, kShape.B, kShape.T, {kShape.I, kShape.H});
  const Device d = addInputs(h, params, p);
  Tensor inter;
  Tensor out = lstm::lstmFwd(g, params, h.prog(), d.init, d.w, d.x, &inter, "lstm");
  Tensor dOut = h.input(type, {kShape.T, kShape.B, kShape.H}, p.dOut, "dOut");
  Tensor dcLast = h.input(type, {kShape.B, kShape.H}, p.dcLast, "dcLast");
  Tensor dx;
  lstm::LstmWeights dw;
  const auto dInit = lstm::lstmBwdWithWU(g, params, h.prog(), d.init, inter, d.w, d.x, out, dOut,
                                         &dcLast, &dx, dw, "lstmBwd");
  // The split form must give the same numbers.
  Tensor dx2, bwdInter;
  lstm::lstmBwd(g, params, h.prog(), d.init, inter, d.w, d.x, out, dOut, &dcLast, &dx2, &bwdInter,
                "lstmBwd2");
  const auto dw2 = lstm::lstmWU(g, params, h.prog(), d.init, inter, bwdInter, d.w, d.x, out, "wu");
  h.output("dx", dx);
  h.output("dh0", dInit.output);
  h.output("dc0", dInit.cellState);
  h.output("dWi", dw.inputWeights);
  h.output("dWo", dw.outputWeights);
  h.output("db", dw.biases);
  h.output("dx2", dx2);
  h.output("dWi2", dw2.inputWeights);
  const auto r = h.run();
  const auto want =
      reference::lstmBackward(kShape, p.x, p.h0, p.c0, p.Wi, p.Wo, p.b, p.dOut, p.dcLast);
  const double atol = atolFor(type) * (type == poplar::HALF ? 4 : 1);
  expectClose(r.at("dx"), want.dx, atol, rtolFor(type), "input gradient");
  expectClose(r.at("dh0"), want.dh0, atol, rtolFor(type), "initial output gradient");
  expectClose(r.at("dc0"), want.dc0, atol, rtolFor(type), "initial cell state gradient");
  expectClose(r.at("dWi"), want.dWi, atol, rtolFor(type), "input weights gradient");
  expectClose(r.at("dWo"), want.dWo, atol, rtolFor(type), "recurrent weights gradient");
  expectClose(r.at("db"), want.db, atol, rtolFor(type), "bias gradient");
  EXPECT_EQ(r.at("dx2"), r.at("dx"));
  EXPECT_EQ(r.at("dWi2"), r.at("dWi"));
}

INSTANTIATE_TEST_SUITE_P(Lstm, LstmCases,
                         testing::Values(Case{poplar::FLOAT, Layout::SINGLE_TILE},
                                         Case{poplar::FLOAT, Layout::MULTI_TILE},
                                         Case{poplar::HALF, Layout::SINGLE_TILE},
                                         Case{poplar::HALF, Layout::MULTI_TILE}),
                         caseName);

TEST(Lstm, ReferenceGradientsMatchCentralFiniteDifferences) {
  const reference::LstmShape s{3, 2, 2, 3};
  const Problem p(s, poplar::FLOAT, 3);
  const auto g = reference::lstmBackward(s, p.x, p.h0, p.c0, p.Wi, p.Wo, p.b, p.dOut, p.dcLast);
  // L = Σ dOut·h + dcLast·c_{T-1}.
  auto loss = [&](const std::vector<double> &x, const std::vector<double> &h0,
                  const std::vector<double> &c0, const std::vector<double> &Wi,
                  const std::vector<double> &Wo, const std::vector<double> &b) {
    const auto f = reference::lstmForward(s, x, h0, c0, Wi, Wo, b);
    const std::vector<double> last(f.cell.end() - s.B * s.H, f.cell.end());
    return dot(f.output, p.dOut) + dot(last, p.dcLast);
  };
  const double tol = 1e-6;
  expectClose(finiteDifference([&](auto &v) { return loss(v, p.h0, p.c0, p.Wi, p.Wo, p.b); }, p.x),
              g.dx, tol, 1e-5, "dx");
  expectClose(finiteDifference([&](auto &v) { return loss(p.x, v, p.c0, p.Wi, p.Wo, p.b); }, p.h0),
              g.dh0, tol, 1e-5, "dh0");
  expectClose(finiteDifference([&](auto &v) { return loss(p.x, p.h0, v, p.Wi, p.Wo, p.b); }, p.c0),
              g.dc0, tol, 1e-5, "dc0");
  expectClose(finiteDifference([&](auto &v) { return loss(p.x, p.h0, p.c0, v, p.Wo, p.b); }, p.Wi),
              g.dWi, tol, 1e-5, "dWi");
  expectClose(finiteDifference([&](auto &v) { return loss(p.x, p.h0, p.c0, p.Wi, v, p.b); }, p.Wo),
              g.dWo, tol, 1e-5, "dWo");
  expectClose(finiteDifference([&](auto &v) { return loss(p.x, p.h0, p.c0, p.Wi, p.Wo, v); }, p.b),
              g.db, tol, 1e-5, "db");
}

TEST(Lstm, DeviceGradientsMatchCentralFiniteDifferencesOfTheDeviceForward) {
  // The device's own forward pass, differenced in FLOAT, against its backward pass.
  const reference::LstmShape s{3, 2, 2, 3};
  const Problem p(s, poplar::FLOAT, 4);
  lstm::LstmParams params(poplar::FLOAT, s.B, s.T, {s.I, s.H});
  auto forward = [&](const std::vector<double> &x) {
    Harness h(Layout::SINGLE_TILE);
    Problem q = p;
    q.x = x;
    const Device d = addInputs(h, params, q);
    h.output("out", lstm::lstmFwd(h.graph(), params, h.prog(), d.init, d.w, d.x, nullptr));
    return dot(h.run().at("out"), p.dOut);
  };
  Harness h(Layout::SINGLE_TILE);
  const Device d = addInputs(h, params, p);
  Tensor inter;
  Tensor out = lstm::lstmFwd(h.graph(), params, h.prog(), d.init, d.w, d.x, &inter);
  Tensor dOut = h.input(poplar::FLOAT, {s.T, s.B, s.H}, p.dOut, "dOut");
  Tensor dx;
  lstm::lstmBwd(h.graph(), params, h.prog(), d.init, inter, d.w, d.x, out, dOut, nullptr, &dx,
                nullptr);
  h.output("dx", dx);
  const auto got = h.run().at("dx");
  expectClose(got, finiteDifference(forward, p.x, 1e-2), 2e-3, 2e-2, "dx vs finite differences");
}

TEST(Lstm, CellOrderNamesTheUnitOfEachWeightSlice) {
  // PyTorch's order (input, forget, candidate, output) with weights permuted to match gives the
  // default order's results, and the gradients come back in the same permuted order.
  const Problem p(kShape, poplar::FLOAT, 5);
  lstm::LstmParams params(poplar::FLOAT, kShape.B, kShape.T, {kShape.I, kShape.H});
  params.cellOrder = {BASIC_LSTM_CELL_INPUT_GATE, BASIC_LSTM_CELL_FORGET_GATE,
                      BASIC_LSTM_CELL_CANDIDATE, BASIC_LSTM_CELL_OUTPUT_GATE};
  Harness h(Layout::MULTI_TILE);
  const Device d = addInputs(h, params, p);
  Tensor inter;
  Tensor out = lstm::lstmFwd(h.graph(), params, h.prog(), d.init, d.w, d.x, &inter);
  Tensor dOut = h.input(poplar::FLOAT, {kShape.T, kShape.B, kShape.H}, p.dOut, "dOut");
  lstm::LstmWeights dw;
  lstm::lstmBwdWithWU(h.graph(), params, h.prog(), d.init, inter, d.w, d.x, out, dOut, nullptr,
                      nullptr, dw);
  h.output("out", out);
  h.output("db", dw.biases);
  h.output("dWo", dw.outputWeights);
  const auto r = h.run();
  const auto wantOut = reference::lstmForward(kShape, p.x, p.h0, p.c0, p.Wi, p.Wo, p.b);
  const auto want = reference::lstmBackward(kShape, p.x, p.h0, p.c0, p.Wi, p.Wo, p.b, p.dOut, {});
  expectClose(r.at("out"), wantOut.output, 2e-5, 1e-4, "outputs");
  expectClose(unpermuteUnits(r.at("db"), params.cellOrder), want.db, 2e-5, 1e-4, "bias grad");
  expectClose(unpermuteUnits(r.at("dWo"), params.cellOrder), want.dWo, 2e-5, 1e-4, "dWo");
}

TEST(Lstm, LastOutputOnlyReturnsAndBackpropagatesTheFinalStep) {
  const Problem p(kShape, poplar::FLOAT, 6);
  lstm::LstmParams params(poplar::FLOAT, kShape.B, kShape.T, {kShape.I, kShape.H});
  params.outputFullSequence = false;
  Harness h(Layout::MULTI_TILE);
  const Device d = addInputs(h, params, p);
  Tensor inter;
  Tensor out = lstm::lstmFwd(h.graph(), params, h.prog(), d.init, d.w, d.x, &inter);
  ASSERT_EQ(out.shape(), (std::vector<std::size_t>{kShape.B, kShape.H}));
  const std::vector<double> dLast(p.dOut.begin(), p.dOut.begin() + kShape.B * kShape.H);
  Tensor dOut = h.input(poplar::FLOAT, {kShape.B, kShape.H}, dLast, "dOut");
  Tensor dx;
  lstm::LstmWeights dw;
  lstm::lstmBwdWithWU(h.graph(), params, h.prog(), d.init, inter, d.w, d.x, out, dOut, nullptr,
                      &dx, dw);
  h.output("out", out);
  h.output("dx", dx);
  h.output("dWi", dw.inputWeights);
  const auto r = h.run();
  std::vector<double> dSeq(p.dOut.size(), 0.0);
  std::copy(dLast.begin(), dLast.end(), dSeq.end() - dLast.size());
  const auto fw = reference::lstmForward(kShape, p.x, p.h0, p.c0, p.Wi, p.Wo, p.b);
  const auto want = reference::lstmBackward(kShape, p.x, p.h0, p.c0, p.Wi, p.Wo, p.b, dSeq, {});
  expectClose(r.at("out"), std::vector<double>(fw.output.end() - dLast.size(), fw.output.end()),
              2e-5, 1e-4, "last output");
  expectClose(r.at("dx"), want.dx, 2e-5, 1e-4, "input gradient");
  expectClose(r.at("dWi"), want.dWi, 2e-5, 1e-4, "input weights gradient");
}

std::map<std::string, std::vector<double>> runWithThreads(unsigned threads) {
  const Problem p(kShape, poplar::FLOAT, 7);
  Harness h(Layout::MULTI_TILE);
  lstm::LstmParams params(poplar::FLOAT, kShape.B, kShape.T, {kShape.I, kShape.H});
  const Device d = addInputs(h, params, p);
  Tensor inter;
  Tensor out = lstm::lstmFwd(h.graph(), params, h.prog(), d.init, d.w, d.x, &inter);
  Tensor dOut = h.input(poplar::FLOAT, {kShape.T, kShape.B, kShape.H}, p.dOut, "dOut");
  Tensor dx;
  lstm::LstmWeights dw;
  lstm::lstmBwdWithWU(h.graph(), params, h.prog(), d.init, inter, d.w, d.x, out, dOut, nullptr,
                      &dx, dw);
  h.output("out", out);
  h.output("dx", dx);
  h.output("dWi", dw.inputWeights);
  h.output("dWo", dw.outputWeights);
  h.output("db", dw.biases);
  poplar::OptionFlags opts;
  opts.set("target.hostThreads", std::to_string(threads));
  return h.run(1, opts);
}

TEST(Lstm, ResultsAreBitIdenticalForOneAndTwoHostThreads) {
  const auto one = runWithThreads(1), two = runWithThreads(2);
  for (const auto &[name, values] : one)
    EXPECT_EQ(two.at(name), values) << name;
}

TEST(Lstm, WrongShapesTypesOptionsAndCellOrdersAreRejectedByName) {
  Harness h(Layout::SINGLE_TILE);
  auto &g = h.graph();
  lstm::LstmParams params(poplar::FLOAT, 2, 3, {4, 5});
  auto w = lstm::createWeights(g, params, "w");
  auto init = lstm::createInitialState(g, params, "init");
  Tensor in = lstm::createInput(g, params, "in");
  Tensor badIn = g.addVariable(poplar::FLOAT, {3, 2, 7}, "badIn");
  auto expectError = [](auto &&fn, const std::string &needle) {
    try {
      fn();
      ADD_FAILURE() << "no exception; expected one naming " << needle;
    } catch (const poputil::poplibs_error &e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expectError([&] { lstm::lstmFwd(g, params, h.prog(), init, w, badIn, nullptr); }, "'in'");
  auto badW = w;
  badW.biases = g.addVariable(poplar::FLOAT, {3, 5}, "badBias");
  expectError([&] { lstm::lstmFwd(g, params, h.prog(), init, badW, in, nullptr); },
              "'weights.biases'");
  auto badInit = init;
  badInit.cellState = g.addVariable(poplar::HALF, {2, 5}, "halfCell");
  expectError([&] { lstm::lstmFwd(g, params, h.prog(), badInit, w, in, nullptr); },
              "'stateInit.cellState'");
  auto badOrder = params;
  badOrder.cellOrder = {BASIC_LSTM_CELL_INPUT_GATE, BASIC_LSTM_CELL_INPUT_GATE,
                        BASIC_LSTM_CELL_CANDIDATE, BASIC_LSTM_CELL_OUTPUT_GATE};
  expectError([&] { lstm::lstmFwd(g, badOrder, h.prog(), init, w, in, nullptr); }, "cellOrder");
  lstm::LstmParams intParams(poplar::INT, 2, 3, {4, 5});
  expectError([&] { lstm::createInput(g, intParams, "in"); }, "dataType");
  Tensor inter;
  Tensor out = lstm::lstmFwd(g, params, h.prog(), init, w, in, &inter);
  Tensor badGrad = g.addVariable(poplar::FLOAT, {2, 5}, "badGrad");
  expectError(
      [&] {
        lstm::lstmBwd(g, params, h.prog(), init, inter, w, in, out, badGrad, nullptr, nullptr,
                      nullptr);
      },
      "'outputGrad'");
  EXPECT_THROW(lstm::lstmFwd(g, params, h.prog(), init, w, in, nullptr, {},
                             {{"recomputationMode", "sometimes"}}),
               poplar::invalid_option);
  EXPECT_THROW(
      lstm::lstmFwd(g, params, h.prog(), init, w, in, nullptr, {}, {{"partialType", "float"}}),
      poplar::invalid_option);
}

TEST(Lstm, SequenceModelLearnsTheSignOfARunningSum) {
  // N sequences of T scalars; target: 0.8 · sign(Σ x) read from output unit 0 of the last step.
  // 150 SGD steps of lstmFwd + lstmBwdWithWU in one Repeat; the loss must fall below a fifth.
  constexpr std::size_t N = 32, T = 6, I = 1, H = 8;
  constexpr unsigned kSteps = 150;
  constexpr float kRate = 0.5f;
  const reference::LstmShape s{T, N, I, H};
  const auto x = randomValues(T * N * I, 91, -1.0, 1.0);
  std::vector<double> target(N * H, 0.0), mask(N * H, 0.0);
  for (std::size_t n = 0; n < N; ++n) {
    double sum = 0;
    for (std::size_t t = 0; t < T; ++t)
      sum += x[t * N + n];
    target[n * H] = sum > 0 ? 0.8 : -0.8;
    mask[n * H] = 1;
  }
  const auto Wi = randomValues(4 * I * H, 92, -0.5, 0.5);
  const auto Wo = randomValues(4 * H * H, 93, -0.3, 0.3);
  const std::vector<double> b(4 * H, 0.0), zeros(N * H, 0.0);
  auto loss = [&](const std::vector<double> &last) {
    double l = 0;
    for (std::size_t n = 0; n < N; ++n)
      l += (last[n * H] - target[n * H]) * (last[n * H] - target[n * H]);
    return l / N;
  };
  const auto before = reference::lstmForward(s, x, zeros, zeros, Wi, Wo, b);
  const double initialLoss =
      loss(std::vector<double>(before.output.end() - N * H, before.output.end()));

  Harness h(Layout::MULTI_TILE);
  auto &g = h.graph();
  lstm::LstmParams params(poplar::FLOAT, N, T, {I, H});
  params.outputFullSequence = false;
  lstm::LstmWeights w{h.input(poplar::FLOAT, {4, I, H}, Wi, "Wi"),
                      h.input(poplar::FLOAT, {4, H, H}, Wo, "Wo"),
                      h.input(poplar::FLOAT, {4, H}, b, "b")};
  Tensor in = h.input(poplar::FLOAT, {T, N, I}, x, "x");
  lstm::LstmState init{h.input(poplar::FLOAT, {N, H}, zeros, "h0"),
                       h.input(poplar::FLOAT, {N, H}, zeros, "c0")};
  Tensor y = h.input(poplar::FLOAT, {N, H}, target, "y");
  Tensor m = h.input(poplar::FLOAT, {N, H}, mask, "mask");
  poplar::program::Sequence step;
  Tensor inter;
  Tensor out = lstm::lstmFwd(g, params, step, init, w, in, &inter, "train/fwd");
  using namespace popops::expr;
  Tensor dOut = popops::map(g, _3 * (_1 - _2) * (2.0f / N), {out, y, m}, step, "train/lossGrad");
  lstm::LstmWeights dw;
  lstm::lstmBwdWithWU(g, params, step, init, inter, w, in, out, dOut, nullptr, nullptr, dw,
                      "train/bwd");
  popops::scaledAddTo(g, w.inputWeights, dw.inputWeights, -kRate, step, "train/sgdWi");
  popops::scaledAddTo(g, w.outputWeights, dw.outputWeights, -kRate, step, "train/sgdWo");
  popops::scaledAddTo(g, w.biases, dw.biases, -kRate, step, "train/sgdB");
  h.prog().add(poplar::program::Repeat(kSteps, step));
  Tensor evalOut = lstm::lstmFwd(g, params, h.prog(), init, w, in, nullptr, "eval");
  h.output("out", evalOut);
  const double finalLoss = loss(h.run().at("out"));
  std::cout << "LSTM running-sign loss " << initialLoss << " -> " << finalLoss << "\n";
  EXPECT_LT(finalLoss, initialLoss / 5);
}

} // namespace
