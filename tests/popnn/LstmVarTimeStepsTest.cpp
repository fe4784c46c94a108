// popnn::lstm with run-time sequence lengths (LstmParams' varTimeSteps constructor): forward,
// backward and weight update against reference/Lstm.hpp extended with per-sequence lengths, in
// FLOAT and HALF on one tile and over 16, the reference against central finite differences,
// one length for the whole batch, host-thread independence and the checks on the lengths.
#include <tuple>

#include <poplar/exceptions.hpp>
#include <popnn/Lstm.hpp>
#include <poputil/exceptions.hpp>
#include <reference/Lstm.hpp>

#include "PopnnTestHarness.hpp"

using namespace popnn_test;
using poplar::Tensor;
namespace lstm = popnn::lstm;

namespace {

const reference::LstmShape kShape{5, 3, 4, 6};

struct Problem {
  reference::LstmShape s;
  std::vector<double> x, h0, c0, Wi, Wo, b, dOut, dcLast;
  Problem(const reference::LstmShape &shape, const poplar::Type &type, unsigned seed) : s(shape) {
    auto r = [&](std::size_t n, unsigned k, double scale) {
      return roundTo(type, randomValues(n, seed * 10 + k, -scale, scale));
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

std::vector<double> toDoubles(const std::vector<std::size_t> &v) {
  return std::vector<double>(v.begin(), v.end());
}

/// The lengths the device sees: one per batch entry, or one for all.
std::vector<std::size_t> perEntry(const std::vector<std::size_t> &lengths, std::size_t batch) {
  return lengths.size() == 1 ? std::vector<std::size_t>(batch, lengths[0]) : lengths;
}

/// Forward, backward and weight update of one problem with `lengths` (type `lenType`).
std::map<std::string, std::vector<double>>
runLayer(const poplar::Type &type, Layout layout, const Problem &p,
         const std::vector<std::size_t> &lengths, const poplar::Type &lenType,
         bool outputFullSequence = true, unsigned threads = 1) {
  const auto &s = p.s;
  Harness h(layout);
  auto &g = h.graph();
  Tensor len = h.input(lenType, {lengths.size()}, toDoubles(lengths), "lengths");
  lstm::LstmParams params(type, s.B, s.T, len, {s.I, s.H});
  params.outputFullSequence = outputFullSequence;
  Tensor x = h.input(type, {s.T, s.B, s.I}, p.x, "x");
  lstm::LstmState init{h.input(type, {s.B, s.H}, p.h0, "h0"),
                       h.input(type, {s.B, s.H}, p.c0, "c0")};
  lstm::LstmWeights w{h.input(type, {4, s.I, s.H}, p.Wi, "Wi"),
                      h.input(type, {4, s.H, s.H}, p.Wo, "Wo"), h.input(type, {4, s.H}, p.b, "b")};
  Tensor inter;
  auto [out, lastCell] = lstm::lstmFwd(g, params, init, x, w, &inter, h.prog(), "lstm");
  std::vector<double> dOut = p.dOut;
  if (!outputFullSequence) // the gradient of the last output only
    dOut.assign(p.dOut.begin(), p.dOut.begin() + s.B * s.H);
  Tensor dOutT = h.input(type, out.shape(), dOut, "dOut");
  Tensor dcLast = h.input(type, {s.B, s.H}, p.dcLast, "dcLast");
  Tensor dx;
  lstm::LstmWeights dw;
  const auto dInit = lstm::lstmBwdWithWU(g, params, h.prog(), init, inter, w, x, out, dOutT,
                                         &dcLast, &dx, dw, "lstmBwd");
  h.output("out", out);
  h.output("lastCell", lastCell);
  h.output("dx", dx);
  h.output("dh0", dInit.output);
  h.output("dc0", dInit.cellState);
  h.output("dWi", dw.inputWeights);
  h.output("dWo", dw.outputWeights);
  h.output("db", dw.biases);
  poplar::OptionFlags opts;
  opts.set("target.hostThreads", std::to_string(threads));
  return h.run(1, opts);
}

double atolFor(const poplar::Type &t) { return t == poplar::HALF ? 3e-2 : 2e-5; }
double rtolFor(const poplar::Type &t) { return t == poplar::HALF ? 3e-2 : 1e-4; }

void expectMatchesReference(const poplar::Type &type, Layout layout,
                            const std::vector<std::size_t> &lengths, const poplar::Type &lenType,
                            unsigned seed) {
  SCOPED_TRACE(std::string(type == poplar::HALF ? "half " : "float ") + layoutName(layout));
  const Problem p(kShape, type, seed);
  const auto r = runLayer(type, layout, p, lengths, lenType);
  const auto each = perEntry(lengths, kShape.B);
  const auto fw = reference::lstmForward(kShape, p.x, p.h0, p.c0, p.Wi, p.Wo, p.b, each);
  const auto want =
      reference::lstmBackward(kShape, p.x, p.h0, p.c0, p.Wi, p.Wo, p.b, p.dOut, p.dcLast, each);
  const double atol = atolFor(type), rtol = rtolFor(type);
  const double gatol = atol * (type == poplar::HALF ? 4 : 1);
  expectClose(r.at("out"), fw.output, atol, rtol, "outputs");
  expectClose(r.at("lastCell"), fw.finalCell, atol, rtol, "final cell state");
  expectClose(r.at("dx"), want.dx, gatol, rtol, "input gradient");
  expectClose(r.at("dh0"), want.dh0, gatol, rtol, "initial output gradient");
  expectClose(r.at("dc0"), want.dc0, gatol, rtol, "initial cell state gradient");
  expectClose(r.at("dWi"), want.dWi, gatol, rtol, "input weights gradient");
  expectClose(r.at("dWo"), want.dWo, gatol, rtol, "recurrent weights gradient");
  expectClose(r.at("db"), want.db, gatol, rtol, "bias gradient");
}

} // namespace

TEST(LstmVarTimeSteps, PerSequenceLengthsMatchTheReferenceForwardBackwardAndWeightUpdate) {
  for (const auto type : {poplar::FLOAT, poplar::HALF})
    for (const auto layout : {Layout::SINGLE_TILE, Layout::MULTI_TILE}) {
      // The longest sequence runs every step; one entry is empty.
      expectMatchesReference(type, layout, {5, 2, 0}, poplar::UNSIGNED_INT, 1);
      // No sequence reaches the last steps: they are skipped.
      expectMatchesReference(type, layout, {3, 1, 2}, poplar::INT, 2);
    }
}

TEST(LstmVarTimeSteps, OneLengthForTheWholeBatchStopsEverySequenceThere) {
  expectMatchesReference(poplar::FLOAT, Layout::MULTI_TILE, {3}, poplar::INT, 3);
  // Lengths of at least maxTimeSteps give the fixed-length layer.
  const Problem p(kShape, poplar::FLOAT, 4);
  const auto r = runLayer(poplar::FLOAT, Layout::SINGLE_TILE, p, {7}, poplar::INT);
  const auto fw = reference::lstmForward(kShape, p.x, p.h0, p.c0, p.Wi, p.Wo, p.b);
  expectClose(r.at("out"), fw.output, 2e-5, 1e-4, "outputs");
}

TEST(LstmVarTimeSteps, OutputsPastASequencesEndAreZero) {
  const Problem p(kShape, poplar::FLOAT, 5);
  const std::vector<std::size_t> lengths{4, 1, 2};
  const auto r = runLayer(poplar::FLOAT, Layout::MULTI_TILE, p, lengths, poplar::INT);
  const auto &out = r.at("out");
  for (std::size_t t = 0; t < kShape.T; ++t)
    for (std::size_t n = 0; n < kShape.B; ++n)
      for (std::size_t j = 0; j < kShape.H; ++j) {
        const double v = out[(t * kShape.B + n) * kShape.H + j];
        if (t >= lengths[n])
          EXPECT_EQ(v, 0.0) << "step " << t << " entry " << n;
        else
          EXPECT_NE(v, 0.0) << "step " << t << " entry " << n;
      }
}

TEST(LstmVarTimeSteps, LastOutputOnlyReturnsEachSequencesOwnLastOutput) {
  const Problem p(kShape, poplar::FLOAT, 6);
  const std::vector<std::size_t> lengths{3, 1, 5};
  const auto r = runLayer(poplar::FLOAT, Layout::SINGLE_TILE, p, lengths, poplar::INT, false);
  const auto fw = reference::lstmForward(kShape, p.x, p.h0, p.c0, p.Wi, p.Wo, p.b, lengths);
  expectClose(r.at("out"), fw.finalOutput, 2e-5, 1e-4, "last output");
  // Entry n's last output is its output at step lengths[n] - 1.
  for (std::size_t n = 0; n < kShape.B; ++n)
    for (std::size_t j = 0; j < kShape.H; ++j)
      EXPECT_NEAR(r.at("out")[n * kShape.H + j],
                  fw.output[((lengths[n] - 1) * kShape.B + n) * kShape.H + j], 2e-5);
  const std::vector<double> dhLast(p.dOut.begin(), p.dOut.begin() + kShape.B * kShape.H);
  const std::vector<double> noOutputGrad(kShape.T * kShape.B * kShape.H, 0.0);
  const auto want = reference::lstmBackward(kShape, p.x, p.h0, p.c0, p.Wi, p.Wo, p.b, noOutputGrad,
                                            p.dcLast, lengths, dhLast);
  expectClose(r.at("dx"), want.dx, 2e-5, 1e-4, "input gradient");
  expectClose(r.at("dh0"), want.dh0, 2e-5, 1e-4, "initial output gradient");
  expectClose(r.at("dc0"), want.dc0, 2e-5, 1e-4, "initial cell state gradient");
  expectClose(r.at("dWo"), want.dWo, 2e-5, 1e-4, "recurrent weights gradient");
}

TEST(LstmVarTimeSteps, ReferenceGradientsWithLengthsMatchCentralFiniteDifferences) {
  const reference::LstmShape s{4, 3, 2, 3};
  const Problem p(s, poplar::FLOAT, 7);
  const std::vector<std::size_t> lengths{3, 1, 0}; // and steps past every end
  const std::vector<double> dhLast(p.dOut.begin(), p.dOut.begin() + s.B * s.H);
  const auto g = reference::lstmBackward(s, p.x, p.h0, p.c0, p.Wi, p.Wo, p.b, p.dOut, p.dcLast,
                                         lengths, dhLast);
  auto loss = [&](const std::vector<double> &x, const std::vector<double> &h0,
                  const std::vector<double> &c0, const std::vector<double> &Wi,
                  const std::vector<double> &Wo, const std::vector<double> &b) {
    const auto f = reference::lstmForward(s, x, h0, c0, Wi, Wo, b, lengths);
    return dot(f.output, p.dOut) + dot(f.finalCell, p.dcLast) + dot(f.finalOutput, dhLast);
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

TEST(LstmVarTimeSteps, ResultsAreBitIdenticalForOneAndTwoHostThreads) {
  const Problem p(kShape, poplar::HALF, 8);
  const std::vector<std::size_t> lengths{4, 2, 5};
  const auto one = runLayer(poplar::HALF, Layout::MULTI_TILE, p, lengths, poplar::INT, true, 1);
  const auto two = runLayer(poplar::HALF, Layout::MULTI_TILE, p, lengths, poplar::INT, true, 2);
  for (const auto &[name, values] : one)
    EXPECT_EQ(two.at(name), values) << name;
}

TEST(LstmVarTimeSteps, LengthsOfTheWrongShapeOrTypeAreRejectedByName) {
  Harness h(Layout::SINGLE_TILE);
  auto &g = h.graph();
  auto build = [&](const Tensor &len) {
    lstm::LstmParams params(poplar::FLOAT, 2, 3, len, {4, 5});
    EXPECT_TRUE(params.rnn.variableTimeSteps());
    auto w = lstm::createWeights(g, params, "w");
    auto init = lstm::createInitialState(g, params, "init");
    Tensor in = lstm::createInput(g, params, "in");
    lstm::lstmFwd(g, params, h.prog(), init, w, in, nullptr);
  };
  auto expectError = [&](const Tensor &len, const std::string &needle) {
    try {
      build(len);
      ADD_FAILURE() << "no exception; expected one naming " << needle;
    } catch (const poputil::poplibs_error &e) {
      EXPECT_NE(std::string(e.what()).find("varTimeSteps"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  Tensor floatLen = g.addVariable(poplar::FLOAT, {2}, "floatLen");
  Tensor longLen = g.addVariable(poplar::INT, {3}, "longLen");
  Tensor matrixLen = g.addVariable(poplar::INT, {2, 1}, "matrixLen");
  for (const Tensor &t : {floatLen, longLen, matrixLen})
    g.setTileMapping(t, 0);
  expectError(floatLen, "INT or UNSIGNED_INT");
  expectError(longLen, "{2}");
  expectError(matrixLen, "{2}");
  // The flags say which form the parameters hold.
  Tensor one = g.addVariable(poplar::INT, {1}, "one");
  lstm::LstmParams whole(poplar::FLOAT, 2, 3, one, {4, 5});
  EXPECT_TRUE(whole.rnn.variableTimeSteps());
  EXPECT_FALSE(whole.rnn.batchVariableTimeSteps());
  lstm::LstmParams fixed(poplar::FLOAT, 2, 3, {4, 5});
  EXPECT_FALSE(fixed.rnn.variableTimeSteps());
}

TEST(LstmVarTimeSteps, DeviceGradientsMatchCentralFiniteDifferencesOfTheDeviceForward) {
  // With lengths {3, 1}: the device's forward differenced in FLOAT against its backward pass.
  const reference::LstmShape s{3, 2, 2, 3};
  const Problem p(s, poplar::FLOAT, 9);
  const std::vector<double> lengths{3, 1};
  auto build = [&](Harness &h, const std::vector<double> &x) {
    Tensor len = h.input(poplar::INT, {2}, lengths, "lengths");
    lstm::LstmParams params(poplar::FLOAT, s.B, s.T, len, {s.I, s.H});
    Tensor xt = h.input(poplar::FLOAT, {s.T, s.B, s.I}, x, "x");
    lstm::LstmState init{h.input(poplar::FLOAT, {s.B, s.H}, p.h0, "h0"),
                         h.input(poplar::FLOAT, {s.B, s.H}, p.c0, "c0")};
    lstm::LstmWeights w{h.input(poplar::FLOAT, {4, s.I, s.H}, p.Wi, "Wi"),
                        h.input(poplar::FLOAT, {4, s.H, s.H}, p.Wo, "Wo"),
                        h.input(poplar::FLOAT, {4, s.H}, p.b, "b")};
    return std::make_tuple(params, xt, init, w);
  };
  auto forward = [&](const std::vector<double> &x) {
    Harness h(Layout::SINGLE_TILE);
    auto [params, xt, init, w] = build(h, x);
    h.output("out", lstm::lstmFwd(h.graph(), params, h.prog(), init, w, xt, nullptr));
    return dot(h.run().at("out"), p.dOut);
  };
  Harness h(Layout::SINGLE_TILE);
  auto [params, xt, init, w] = build(h, p.x);
  Tensor inter;
  Tensor out = lstm::lstmFwd(h.graph(), params, h.prog(), init, w, xt, &inter);
  Tensor dOut = h.input(poplar::FLOAT, {s.T, s.B, s.H}, p.dOut, "dOut");
  Tensor dx;
  lstm::lstmBwd(h.graph(), params, h.prog(), init, inter, w, xt, out, dOut, nullptr, &dx, nullptr);
  h.output("dx", dx);
  const auto got = h.run().at("dx");
  expectClose(got, finiteDifference(forward, p.x, 1e-2), 2e-3, 2e-2, "dx vs finite differences");
  // Entry 1 stops after one step: its later inputs have no influence.
  for (std::size_t t = 1; t < s.T; ++t)
    for (std::size_t k = 0; k < s.I; ++k)
      EXPECT_EQ(got[(t * s.B + 1) * s.I + k], 0.0) << "step " << t;
}
