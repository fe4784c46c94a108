// popnn::gru with run-time sequence lengths (GruParams' timeSteps-tensor constructor and the
// realTimeSteps forms): GRU and AUGRU forward, backward and weight update against
// reference/Gru.hpp extended with per-sequence lengths, reset before and after, FLOAT and HALF
// on one tile and over 16, the reference against central finite differences, last-output-only
// mode and host-thread independence.
#include <tuple>

#include <popnn/Gru.hpp>
#include <poputil/exceptions.hpp>
#include <reference/Gru.hpp>

#include "PopnnTestHarness.hpp"

using namespace popnn_test;
using poplar::Tensor;
namespace gru = popnn::gru;

namespace {

struct Problem {
  reference::GruShape s;
  std::vector<double> x, h0, Wi, Wo, b, dOut, att;
  Problem(const reference::GruShape &shape, const poplar::Type &type, unsigned seed) : s(shape) {
    auto r = [&](std::size_t n, unsigned k, double lo, double hi) {
      return roundTo(type, randomValues(n, seed * 10 + k, lo, hi));
    };
    x = r(s.T * s.B * s.I, 1, -1.0, 1.0);
    h0 = r(s.B * s.H, 2, -0.5, 0.5);
    Wi = r(3 * s.I * s.H, 3, -0.5, 0.5);
    Wo = r(3 * s.H * s.H, 4, -0.5, 0.5);
    b = r(3 * s.H * (s.resetAfter ? 2 : 1), 5, -0.5, 0.5);
    dOut = r(s.T * s.B * s.H, 6, -1.0, 1.0);
    att = r(s.B * s.T, 7, 0.0, 1.0);
  }
};

struct Options {
  bool augru = false;
  bool fullSequence = true;
  bool realTimeStepsForm = false; // lengths passed as an argument instead of in the params
  unsigned threads = 1;
};

std::map<std::string, std::vector<double>> runLayer(const poplar::Type &type, Layout layout,
                                                    const Problem &p,
                                                    const std::vector<std::size_t> &lengths,
                                                    const Options &o) {
  const auto &s = p.s;
  Harness h(layout);
  auto &g = h.graph();
  Tensor len = h.input(poplar::UNSIGNED_INT, {lengths.size()},
                       std::vector<double>(lengths.begin(), lengths.end()), "lengths");
  gru::GruParams params = o.realTimeStepsForm ? gru::GruParams(type, s.B, s.T, {s.I, s.H})
                                              : gru::GruParams(type, s.B, s.T, len, {s.I, s.H});
  params.resetAfter = s.resetAfter;
  params.outputFullSequence = o.fullSequence;
  Tensor x = h.input(type, {s.T, s.B, s.I}, p.x, "x");
  Tensor h0 = h.input(type, {s.B, s.H}, p.h0, "h0");
  std::vector<std::size_t> biasShape{3, s.H};
  if (s.resetAfter)
    biasShape = {3, 2, s.H};
  gru::GruWeights w{h.input(type, {3, s.I, s.H}, p.Wi, "Wi"),
                    h.input(type, {3, s.H, s.H}, p.Wo, "Wo"), h.input(type, biasShape, p.b, "b")};
  Tensor att = h.input(type, {s.B, s.T}, p.att, "att");
  Tensor inter, out;
  if (o.augru)
    out = o.realTimeStepsForm
              ? gru::auGruFwd(g, params, h0, x, len, w, &inter, att, h.prog(), "augru")
              : gru::auGruFwd(g, params, h0, x, w, &inter, att, h.prog(), "augru");
  else
    out = o.realTimeStepsForm ? gru::gruFwd(g, params, h0, x, len, w, &inter, h.prog(), "gru")
                              : gru::gruFwd(g, params, h0, x, w, &inter, h.prog(), "gru");
  std::vector<double> dOut = p.dOut;
  if (!o.fullSequence)
    dOut.assign(p.dOut.begin(), p.dOut.begin() + s.B * s.H);
  Tensor dOutT = h.input(type, out.shape(), dOut, "dOut");
  Tensor dx, dAtt, dh0;
  gru::GruWeights dw;
  if (o.augru)
    dh0 = o.realTimeStepsForm ? gru::auGruBwdWithWU(g, params, h.prog(), h0, inter, w, x, len, out,
                                                    dOutT, &dx, dw, att, &dAtt, "bwd", {}, nullptr)
                              : gru::auGruBwdWithWU(g, params, h.prog(), h0, inter, w, x, out,
                                                    dOutT, &dx, dw, att, &dAtt, "bwd", {}, nullptr);
  else
    dh0 = o.realTimeStepsForm ? gru::gruBwdWithWU(g, params, h.prog(), h0, inter, w, x, len, out,
                                                  dOutT, &dx, dw, "bwd", {}, nullptr)
                              : gru::gruBwdWithWU(g, params, h.prog(), h0, inter, w, x, out, dOutT,
                                                  &dx, dw, "bwd", {}, nullptr);
  h.output("out", out);
  h.output("dx", dx);
  h.output("dh0", dh0);
  h.output("dWi", dw.inputWeights);
  h.output("dWo", dw.outputWeights);
  h.output("db", dw.biases);
  if (o.augru)
    h.output("dAtt", dAtt);
  poplar::OptionFlags opts;
  opts.set("target.hostThreads", std::to_string(o.threads));
  return h.run(1, opts);
}

double atolFor(const poplar::Type &t) { return t == poplar::HALF ? 3e-2 : 2e-5; }
double rtolFor(const poplar::Type &t) { return t == poplar::HALF ? 3e-2 : 1e-4; }

void expectMatchesReference(const poplar::Type &type, Layout layout, bool resetAfter,
                            const std::vector<std::size_t> &lengths, const Options &o,
                            unsigned seed) {
  SCOPED_TRACE(std::string(type == poplar::HALF ? "half " : "float ") + layoutName(layout) +
               (resetAfter ? " resetAfter" : " resetBefore") + (o.augru ? " augru" : "") +
               (o.fullSequence ? "" : " lastOutputOnly"));
  const reference::GruShape s{5, 3, 4, 6, resetAfter};
  const Problem p(s, type, seed);
  const auto r = runLayer(type, layout, p, lengths, o);
  const std::vector<double> noAtt;
  const auto &att = o.augru ? p.att : noAtt;
  const auto fw = reference::gruForward(s, p.x, p.h0, p.Wi, p.Wo, p.b, att, lengths);
  std::vector<double> dOut = p.dOut, dhLast;
  if (!o.fullSequence) {
    dhLast.assign(p.dOut.begin(), p.dOut.begin() + s.B * s.H);
    dOut.assign(p.dOut.size(), 0.0);
  }
  const auto want =
      reference::gruBackward(s, p.x, p.h0, p.Wi, p.Wo, p.b, dOut, att, lengths, dhLast);
  const double atol = atolFor(type), rtol = rtolFor(type);
  const double gatol = atol * (type == poplar::HALF ? 4 : 1);
  expectClose(r.at("out"), o.fullSequence ? fw.output : fw.finalOutput, atol, rtol, "outputs");
  expectClose(r.at("dx"), want.dx, gatol, rtol, "input gradient");
  expectClose(r.at("dh0"), want.dh0, gatol, rtol, "initial output gradient");
  expectClose(r.at("dWi"), want.dWi, gatol, rtol, "input weights gradient");
  expectClose(r.at("dWo"), want.dWo, gatol, rtol, "recurrent weights gradient");
  expectClose(r.at("db"), want.db, gatol, rtol, "bias gradient");
  if (o.augru)
    expectClose(r.at("dAtt"), want.datt, gatol, rtol, "attention gradient");
}

} // namespace

TEST(GruVarTimeSteps, PerSequenceLengthsMatchTheReferenceForwardBackwardAndWeightUpdate) {
  for (const auto type : {poplar::FLOAT, poplar::HALF})
    for (const auto layout : {Layout::SINGLE_TILE, Layout::MULTI_TILE})
      for (const bool resetAfter : {false, true}) {
        expectMatchesReference(type, layout, resetAfter, {5, 2, 0}, {}, 1);
        expectMatchesReference(type, layout, resetAfter, {3, 1, 2}, {}, 2);
      }
}

TEST(GruVarTimeSteps, AugruAndTheRealTimeStepsFormsAgreeWithTheReference) {
  Options augru;
  augru.augru = true;
  expectMatchesReference(poplar::FLOAT, Layout::MULTI_TILE, false, {4, 1, 3}, augru, 3);
  augru.realTimeStepsForm = true;
  expectMatchesReference(poplar::FLOAT, Layout::MULTI_TILE, true, {4, 1, 3}, augru, 4);
  Options plain;
  plain.realTimeStepsForm = true;
  expectMatchesReference(poplar::HALF, Layout::SINGLE_TILE, false, {2, 5, 1}, plain, 5);
}

TEST(GruVarTimeSteps, LastOutputOnlyReturnsEachSequencesOwnLastOutput) {
  Options last;
  last.fullSequence = false;
  expectMatchesReference(poplar::FLOAT, Layout::SINGLE_TILE, false, {3, 1, 5}, last, 6);
  expectMatchesReference(poplar::FLOAT, Layout::MULTI_TILE, true, {2, 0, 4}, last, 7);
}

TEST(GruVarTimeSteps, ReferenceGradientsWithLengthsMatchCentralFiniteDifferences) {
  for (const bool resetAfter : {false, true}) {
    const reference::GruShape s{4, 3, 2, 3, resetAfter};
    const Problem p(s, poplar::FLOAT, 8);
    const std::vector<std::size_t> lengths{3, 1, 0};
    const std::vector<double> dhLast(p.dOut.begin(), p.dOut.begin() + s.B * s.H);
    const auto g =
        reference::gruBackward(s, p.x, p.h0, p.Wi, p.Wo, p.b, p.dOut, p.att, lengths, dhLast);
    auto loss = [&](const std::vector<double> &x, const std::vector<double> &h0,
                    const std::vector<double> &Wi, const std::vector<double> &Wo,
                    const std::vector<double> &b, const std::vector<double> &att) {
      const auto f = reference::gruForward(s, x, h0, Wi, Wo, b, att, lengths);
      return dot(f.output, p.dOut) + dot(f.finalOutput, dhLast);
    };
    const double tol = 1e-6;
    expectClose(
        finiteDifference([&](auto &v) { return loss(v, p.h0, p.Wi, p.Wo, p.b, p.att); }, p.x), g.dx,
        tol, 1e-5, "dx");
    expectClose(
        finiteDifference([&](auto &v) { return loss(p.x, v, p.Wi, p.Wo, p.b, p.att); }, p.h0),
        g.dh0, tol, 1e-5, "dh0");
    expectClose(
        finiteDifference([&](auto &v) { return loss(p.x, p.h0, v, p.Wo, p.b, p.att); }, p.Wi),
        g.dWi, tol, 1e-5, "dWi");
    expectClose(
        finiteDifference([&](auto &v) { return loss(p.x, p.h0, p.Wi, v, p.b, p.att); }, p.Wo),
        g.dWo, tol, 1e-5, "dWo");
    expectClose(
        finiteDifference([&](auto &v) { return loss(p.x, p.h0, p.Wi, p.Wo, v, p.att); }, p.b), g.db,
        tol, 1e-5, "db");
    expectClose(
        finiteDifference([&](auto &v) { return loss(p.x, p.h0, p.Wi, p.Wo, p.b, v); }, p.att),
        g.datt, tol, 1e-5, "datt");
  }
}

TEST(GruVarTimeSteps, ResultsAreBitIdenticalForOneAndTwoHostThreads) {
  const reference::GruShape s{5, 3, 4, 6, true};
  const Problem p(s, poplar::HALF, 9);
  Options o;
  o.augru = true;
  const auto one = runLayer(poplar::HALF, Layout::MULTI_TILE, p, {4, 2, 5}, o);
  o.threads = 2;
  const auto two = runLayer(poplar::HALF, Layout::MULTI_TILE, p, {4, 2, 5}, o);
  for (const auto &[name, values] : one)
    EXPECT_EQ(two.at(name), values) << name;
}

TEST(GruVarTimeSteps, LengthsOfTheWrongShapeAreRejectedByName) {
  Harness h(Layout::SINGLE_TILE);
  auto &g = h.graph();
  Tensor bad = g.addVariable(poplar::INT, {3}, "bad");
  g.setTileMapping(bad, 0);
  gru::GruParams params(poplar::FLOAT, 2, 3, {4, 5});
  auto w = gru::createWeights(g, params, "w");
  Tensor init = gru::createInitialState(g, params, "init", {}, nullptr);
  Tensor in = gru::createInput(g, params, "in");
  try {
    gru::gruFwd(g, params, init, in, bad, w, nullptr, h.prog());
    ADD_FAILURE() << "no exception";
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find("varTimeSteps"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("{2}"), std::string::npos) << e.what();
  }
}

TEST(GruVarTimeSteps, DeviceGradientsMatchCentralFiniteDifferencesOfTheDeviceForward) {
  const reference::GruShape s{3, 2, 2, 3, true};
  const Problem p(s, poplar::FLOAT, 10);
  const std::vector<double> lengths{1, 3};
  auto build = [&](Harness &h, const std::vector<double> &x) {
    Tensor len = h.input(poplar::UNSIGNED_INT, {2}, lengths, "lengths");
    gru::GruParams params(poplar::FLOAT, s.B, s.T, len, {s.I, s.H});
    params.resetAfter = true;
    Tensor xt = h.input(poplar::FLOAT, {s.T, s.B, s.I}, x, "x");
    Tensor h0 = h.input(poplar::FLOAT, {s.B, s.H}, p.h0, "h0");
    gru::GruWeights w{h.input(poplar::FLOAT, {3, s.I, s.H}, p.Wi, "Wi"),
                      h.input(poplar::FLOAT, {3, s.H, s.H}, p.Wo, "Wo"),
                      h.input(poplar::FLOAT, {3, 2, s.H}, p.b, "b")};
    return std::make_tuple(params, xt, h0, w);
  };
  auto forward = [&](const std::vector<double> &x) {
    Harness h(Layout::SINGLE_TILE);
    auto [params, xt, h0, w] = build(h, x);
    h.output("out", gru::gruFwd(h.graph(), params, h0, xt, w, nullptr, h.prog()));
    return dot(h.run().at("out"), p.dOut);
  };
  Harness h(Layout::SINGLE_TILE);
  auto [params, xt, h0, w] = build(h, p.x);
  Tensor inter;
  Tensor out = gru::gruFwd(h.graph(), params, h0, xt, w, &inter, h.prog());
  Tensor dOut = h.input(poplar::FLOAT, {s.T, s.B, s.H}, p.dOut, "dOut");
  Tensor dx;
  gru::gruBwd(h.graph(), params, h.prog(), h0, inter, w, xt, out, dOut, &dx, nullptr, {}, {},
              nullptr);
  h.output("dx", dx);
  const auto got = h.run().at("dx");
  expectClose(got, finiteDifference(forward, p.x, 1e-2), 2e-3, 2e-2, "dx vs finite differences");
}
