// popnn::rnn (Recurrent.hpp, the vanilla recurrent layer, and Rnn.hpp's parameters and tensor
// factories) against reference/Recurrent.hpp: whole-sequence forward and backward with weight
// deltas in FLOAT and HALF on one tile and over 16, the piecewise API (forwardWeightInput +
// forwardIterate, backwardGradientStep + paramDeltaUpdate) giving the same numbers, the
// reference against finite differences, host-thread independence and argument errors.
#include <algorithm>
#include <cmath>
#include <poplar/exceptions.hpp>
#include <poplin/MatMul.hpp>
#include <popnn/Recurrent.hpp>
#include <popnn/Rnn.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Zero.hpp>
#include <poputil/exceptions.hpp>
#include <reference/Recurrent.hpp>

#include "PopnnTestHarness.hpp"

using namespace popnn_test;
using poplar::Tensor;
namespace rnn = popnn::rnn;

namespace {

const reference::RnnShape kShape{5, 3, 4, 6};

struct Problem {
  reference::RnnShape s;
  std::vector<double> x, y0, Wff, Wfb, b, dy;
  Problem(const reference::RnnShape &shape, const poplar::Type &type, unsigned seed) : s(shape) {
    auto r = [&](std::size_t n, unsigned k, double scale) {
      return roundTo(type, randomValues(n, seed * 10 + k, -scale, scale));
    };
    x = r(s.S * s.B * s.I, 1, 1.0);
    y0 = r(s.B * s.O, 2, 0.5);
    Wff = r(s.I * s.O, 3, 0.5);
    Wfb = r(s.O * s.O, 4, 0.5);
    b = r(s.O, 5, 0.5);
    dy = r(s.S * s.B * s.O, 6, 1.0);
  }
  /// dy as rnnBwdSequence takes it: [B][S][O].
  std::vector<double> dyBatchMajor() const {
    std::vector<double> out(dy.size());
    for (std::size_t t = 0; t < s.S; ++t)
      for (std::size_t n = 0; n < s.B; ++n)
        for (std::size_t j = 0; j < s.O; ++j)
          out[(n * s.S + t) * s.O + j] = dy[(t * s.B + n) * s.O + j];
    return out;
  }
};

struct Device {
  Tensor x, y0, Wff, Wfb, b;
};

Device addInputs(Harness &h, const poplar::Type &t, const Problem &p) {
  const auto &s = p.s;
  return {h.input(t, {s.S, s.B, s.I}, p.x, "x"), h.input(t, {s.B, s.O}, p.y0, "y0"),
          h.input(t, {s.I, s.O}, p.Wff, "Wff"), h.input(t, {s.O, s.O}, p.Wfb, "Wfb"),
          h.input(t, {s.O}, p.b, "b")};
}

struct Case {
  poplar::Type type;
  Layout layout;
};

std::string caseName(const testing::TestParamInfo<Case> &info) {
  return std::string(info.param.type == poplar::HALF ? "half_" : "float_") +
         layoutName(info.param.layout);
}

class RecurrentCases : public testing::TestWithParam<Case> {};

TEST_P(RecurrentCases, SequenceForwardBackwardAndDeltasMatchReference) {
  const auto [type, layout] = GetParam();
  const Problem p(kShape, type, 1);
  Harness h(layout);
  auto &g = h.graph();
  const Device d = addInputs(h, type, p);
  const auto tanh = popnn::NonLinearityType::TANH;
  Tensor y = rnn::rnnFwdSequence(g, h.prog(), d.y0, nullptr, d.b, d.Wff, d.Wfb, d.x, tanh,
                                 poplar::FLOAT, false, "rnn");
  Tensor dy = h.input(type, {kShape.B, kShape.S, kShape.O}, p.dyBatchMajor(), "dy");
  auto [dx, dWff, dWfb, db] = rnn::rnnBwdSequence(g, true, false, h.prog(), d.y0, y, d.b, d.Wff,
                                                  d.Wfb, dy, d.x, tanh, poplar::FLOAT, "rnnBwd");
  h.output("y", y);
  h.output("dx", dx);
  h.output("dWff", dWff);
  h.output("dWfb", dWfb);
  h.output("db", db);
  const auto r = h.run();
  const auto ref = reference::RnnActivation::TANH;
  const auto wantY = reference::rnnForward(kShape, ref, p.x, p.y0, p.Wff, p.Wfb, p.b);
  const auto want = reference::rnnBackward(kShape, ref, p.x, p.y0, p.Wff, p.Wfb, p.b, p.dy);
  const double atol = type == poplar::HALF ? 6e-2 : 2e-5, rtol = type == poplar::HALF ? 3e-2 : 1e-4;
  expectClose(r.at("y"), wantY, atol, rtol, "outputs");
  expectClose(r.at("dx"), want.dx, atol, rtol, "input gradient");
  expectClose(r.at("dWff"), want.dWff, atol, rtol, "input weight deltas");
  expectClose(r.at("dWfb"), want.dWfb, atol, rtol, "feedback weight deltas");
  expectClose(r.at("db"), want.db, atol, rtol, "bias deltas");
}

INSTANTIATE_TEST_SUITE_P(Recurrent, RecurrentCases,
                         testing::Values(Case{poplar::FLOAT, Layout::SINGLE_TILE},
                                         Case{poplar::FLOAT, Layout::MULTI_TILE},
                                         Case{poplar::HALF, Layout::SINGLE_TILE},
                                         Case{poplar::HALF, Layout::MULTI_TILE}),
                         caseName);

TEST(Recurrent, PiecewiseApiGivesTheSequenceResults) {
  // forwardWeightInput + forwardIterate, and rnnFwdSequence fed the pre-weighted input, equal
  // rnnFwdSequence; per-step backwardGradientStep + paramDeltaUpdate equal the reference.
  const Problem p(kShape, poplar::FLOAT, 2);
  Harness h(Layout::MULTI_TILE);
  auto &g = h.graph();
  auto &prog = h.prog();
  const Device d = addInputs(h, poplar::FLOAT, p);
  const auto nl = popnn::NonLinearityType::SIGMOID;
  Tensor weighted = rnn::forwardWeightInput(g, d.x, d.Wff, prog);
  Tensor y = rnn::forwardIterate(g, weighted, d.y0, d.Wfb, d.b, prog, nl);
  Tensor ySeq = rnn::rnnFwdSequence(g, prog, d.y0, &weighted, d.b, d.Wff, d.Wfb, d.x, nl,
                                    poplar::FLOAT, false);
  Tensor dy = h.input(poplar::FLOAT, {kShape.S, kShape.B, kShape.O}, p.dy, "dy");
  Tensor state = rnn::createBwdState(g, poplar::FLOAT, kShape.B, kShape.O, prog);
  Tensor dWff = g.clone(d.Wff), dWfb = g.clone(d.Wfb), db = g.clone(d.b);
  for (const Tensor &t : {dWff, dWfb, db})
    popops::zero(g, t, prog);
  std::vector<Tensor> dx(kShape.S);
  for (std::size_t t = kShape.S; t-- > 0;) {
    Tensor prev = t == 0 ? d.y0 : y[t - 1];
    auto [gIn, next] = rnn::backwardGradientStep(g, dy[t], state, y[t], d.Wff, d.Wfb, prog, nl);
    rnn::paramDeltaUpdate(g, next, d.x[t], prev, dWff, dWfb, db, prog);
    dx[t] = gIn.expand({0});
    state = next;
  }
  h.output("y", y);
  h.output("ySeq", ySeq);
  h.output("dx", poplar::concat(dx));
  h.output("dWff", dWff);
  h.output("dWfb", dWfb);
  h.output("db", db);
  const auto r = h.run();
  const auto ref = reference::RnnActivation::SIGMOID;
  const auto want = reference::rnnBackward(kShape, ref, p.x, p.y0, p.Wff, p.Wfb, p.b, p.dy);
  expectClose(r.at("y"), reference::rnnForward(kShape, ref, p.x, p.y0, p.Wff, p.Wfb, p.b), 2e-5,
              1e-4, "forwardIterate outputs");
  EXPECT_EQ(r.at("ySeq"), r.at("y"));
  expectClose(r.at("dx"), want.dx, 2e-5, 1e-4, "input gradient");
  expectClose(r.at("dWff"), want.dWff, 2e-5, 1e-4, "input weight deltas");
  expectClose(r.at("dWfb"), want.dWfb, 2e-5, 1e-4, "feedback weight deltas");
  expectClose(r.at("db"), want.db, 2e-5, 1e-4, "bias deltas");
}

TEST(Recurrent, ReferenceGradientsMatchCentralFiniteDifferences) {
  const reference::RnnShape s{3, 2, 2, 3};
  const Problem p(s, poplar::FLOAT, 3);
  for (auto a : {reference::RnnActivation::TANH, reference::RnnActivation::SIGMOID}) {
    const auto g = reference::rnnBackward(s, a, p.x, p.y0, p.Wff, p.Wfb, p.b, p.dy);
    auto loss = [&](const std::vector<double> &x, const std::vector<double> &Wff,
                    const std::vector<double> &Wfb, const std::vector<double> &b) {
      return dot(reference::rnnForward(s, a, x, p.y0, Wff, Wfb, b), p.dy);
    };
    expectClose(finiteDifference([&](auto &v) { return loss(v, p.Wff, p.Wfb, p.b); }, p.x), g.dx,
                1e-6, 1e-5, "dx");
    expectClose(finiteDifference([&](auto &v) { return loss(p.x, v, p.Wfb, p.b); }, p.Wff), g.dWff,
                1e-6, 1e-5, "dWff");
    expectClose(finiteDifference([&](auto &v) { return loss(p.x, p.Wff, v, p.b); }, p.Wfb), g.dWfb,
                1e-6, 1e-5, "dWfb");
    expectClose(finiteDifference([&](auto &v) { return loss(p.x, p.Wff, p.Wfb, v); }, p.b), g.db,
                1e-6, 1e-5, "db");
  }
}

std::map<std::string, std::vector<double>> runWithThreads(unsigned threads) {
  const Problem p(kShape, poplar::FLOAT, 4);
  Harness h(Layout::MULTI_TILE);
  const Device d = addInputs(h, poplar::FLOAT, p);
  const auto nl = popnn::NonLinearityType::TANH;
  Tensor y = rnn::rnnFwdSequence(h.graph(), h.prog(), d.y0, nullptr, d.b, d.Wff, d.Wfb, d.x, nl,
                                 poplar::FLOAT, false);
  Tensor dy = h.input(poplar::FLOAT, {kShape.B, kShape.S, kShape.O}, p.dyBatchMajor(), "dy");
  auto [dx, dWff, dWfb, db] = rnn::rnnBwdSequence(h.graph(), true, false, h.prog(), d.y0, y, d.b,
                                                  d.Wff, d.Wfb, dy, d.x, nl, poplar::FLOAT);
  h.output("y", y);
  h.output("dx", dx);
  h.output("dWfb", dWfb);
  poplar::OptionFlags opts;
  opts.set("target.hostThreads", std::to_string(threads));
  return h.run(1, opts);
}

TEST(Recurrent, ResultsAreBitIdenticalForOneAndTwoHostThreads) {
  const auto one = runWithThreads(1), two = runWithThreads(2);
  for (const auto &[name, values] : one)
    EXPECT_EQ(two.at(name), values) << name;
}

TEST(Recurrent, WrongShapesAndTypesAreRejectedByName) {
  Harness h(Layout::SINGLE_TILE);
  auto &g = h.graph();
  Tensor x = rnn::createInput(g, 3, 2, 4, 5, poplar::FLOAT);
  Tensor Wff = rnn::createWeightsInput(g, 3, 2, 4, 5, poplar::FLOAT);
  Tensor Wfb = rnn::createWeightsFeedback(g, 2, 5, poplar::FLOAT);
  Tensor y0 = rnn::createFwdState(g, poplar::FLOAT, 2, 5, h.prog(), true, false);
  Tensor b = g.addVariable(poplar::FLOAT, {5}, "b");
  EXPECT_EQ(x.shape(), (std::vector<std::size_t>{3, 2, 4}));
  EXPECT_EQ(Wff.shape(), (std::vector<std::size_t>{4, 5}));
  auto expectError = [](auto &&fn, const std::string &needle) {
    try {
      fn();
      ADD_FAILURE() << "no exception; expected one naming " << needle;
    } catch (const poputil::poplibs_error &e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  const auto nl = popnn::NonLinearityType::TANH;
  expectError([&] { rnn::forwardWeightInput(g, x, Wfb, h.prog()); }, "'weights'");
  Tensor badBias = g.addVariable(poplar::FLOAT, {4}, "badBias");
  expectError(
      [&] {
        rnn::rnnFwdSequence(g, h.prog(), y0, nullptr, badBias, Wff, Wfb, x, nl, poplar::FLOAT,
                            false);
      },
      "'biases'");
  Tensor y =
      rnn::rnnFwdSequence(g, h.prog(), y0, nullptr, b, Wff, Wfb, x, nl, poplar::FLOAT, false);
  Tensor stepMajor = g.addVariable(poplar::FLOAT, {3, 2, 5}, "stepMajorGrad");
  expectError(
      [&] {
        rnn::rnnBwdSequence(g, true, false, h.prog(), y0, y, b, Wff, Wfb, stepMajor, x, nl,
                            poplar::FLOAT);
      },
      "'outGradient'");
  expectError([&] { rnn::createWeightsFeedback(g, 2, 5, poplar::INT); }, "dType");
  expectError([&] { rnn::forwardWeightInput(g, x, Wff, h.prog(), poplar::INT); }, "partialsType");
}

TEST(RnnParams, FactoriesGiveSequenceAndStateShapesAndShiftMovesStepsByOne) {
  Harness h(Layout::MULTI_TILE);
  auto &g = h.graph();
  rnn::RnnParams params(poplar::FLOAT, 2, 3, {4, 5});
  EXPECT_EQ(params.maxTimeSteps, 3u);
  EXPECT_EQ(params.timeSteps, 3u);
  EXPECT_FALSE(params.variableTimeSteps());
  EXPECT_EQ(params.getMaxShards(g), std::min<std::size_t>(params.maxTimeSteps, 16));
  EXPECT_EQ(params.getOutputBytesPerTile(g), (2u * 5 * 4 + 15) / 16);
  EXPECT_EQ(rnn::createInitialState(g, params, true, 2, 1).shape(),
            (std::vector<std::size_t>{2, 2, 5}));
  EXPECT_EQ(rnn::createInputTensor(g, params, 1).shape(), (std::vector<std::size_t>{3, 2, 4}));
  EXPECT_EQ(rnn::createOutputTensor(g, params, 2, 1).shape(), (std::vector<std::size_t>{6, 2, 5}));
  // Shards keep the layout; more shards than steps are rejected.
  EXPECT_EQ(rnn::createOutputTensor(g, params, 3).shape(), (std::vector<std::size_t>{3, 2, 5}));
  EXPECT_THROW(rnn::createOutputTensor(g, params, 4), poputil::poplibs_error);
  const auto base = randomValues(3 * 2 * 5, 7), single = randomValues(2 * 5, 8);
  Tensor tBase = h.input(poplar::FLOAT, {3, 2, 5}, base, "base");
  Tensor tSingle = h.input(poplar::FLOAT, {2, 5}, single, "single");
  h.output("shifted", rnn::shiftRnnTensor(g, params, tBase, tSingle, h.prog(), 1));
  auto want = roundTo(poplar::FLOAT, single);
  const auto rest = roundTo(poplar::FLOAT, base);
  want.insert(want.end(), rest.begin(), rest.end() - 10);
  EXPECT_EQ(h.run().at("shifted"), want);
}

} // namespace

namespace {

/// A vanilla RNN cell written as an Rnn() body: y = tanh(x·Wff + h·Wfb + b) into the output,
/// the state and (pre-activation) a created tensor.
struct VanillaCellRun {
  std::map<std::string, std::vector<double>> results;
};

VanillaCellRun runCustomCell(const Problem &p, bool reverse) {
  const auto &s = p.s;
  Harness h(Layout::MULTI_TILE);
  auto &g = h.graph();
  const Device d = addInputs(h, poplar::FLOAT, p);
  rnn::RnnParams params(poplar::FLOAT, s.B, s.S, {s.I, s.O});
  Tensor outputs = rnn::createOutputTensor(g, params, 1);
  Tensor states = rnn::createOutputTensor(g, params, 1);
  Tensor pre = rnn::createOutputTensor(g, params, 1);
  Tensor interim = rnn::createOutputTensor(g, params, 1);
  rnn::LoopBodyType cell = [&](poplar::Graph &graph, const rnn::TimeStepState &,
                               const rnn::RnnBatchwiseFlags &, std::vector<Tensor> &state,
                               const rnn::RnnSlice &slice, std::vector<Tensor> &created,
                               poplar::program::Sequence *, const poplar::DebugNameAndId &) {
    using namespace popops::expr;
    poplar::program::Sequence step;
    Tensor sum = poplin::matMul(graph, slice.inputs[0], d.Wff, step);
    Tensor fb = poplin::matMul(graph, state[0], d.Wfb, step);
    popops::mapInPlace(graph, _1 + _2 + _3,
                       {sum, fb, d.b.expand({0}).broadcast(static_cast<unsigned>(s.B), 0)}, step);
    created[0] = sum;
    Tensor y = popops::map(graph, Tanh(_1), {sum}, step);
    step.add(poplar::program::Copy(y, slice.outputs[0]));
    step.add(poplar::program::Copy(y, state[0]));
    popops::mapWithOutput(graph, _1 * 2.0f, {y}, slice.interimOut, step);
    return step;
  };
  poplar::OptionFlags options{{"codeReuse", "false"}};
  Tensor interimOut = interim;
  auto final = rnn::Rnn(g, params, reverse, {d.y0}, {states, 0}, {d.x}, nullptr, &interimOut,
                        {outputs}, {pre}, h.prog(), cell, 1, options, "custom");
  h.output("outputs", outputs);
  h.output("states", states);
  h.output("pre", pre);
  h.output("interim", interim);
  h.output("final", final[0]);
  return {h.run()};
}

TEST(RnnLoop, CustomCellRunsOverTheSequenceAndStoresEveryStep) {
  const Problem p(kShape, poplar::FLOAT, 9);
  const auto r = runCustomCell(p, false).results;
  const auto want =
      reference::rnnForward(kShape, reference::RnnActivation::TANH, p.x, p.y0, p.Wff, p.Wfb, p.b);
  expectClose(r.at("outputs"), want, 2e-5, 1e-4, "outputs");
  EXPECT_EQ(r.at("states"), r.at("outputs"));
  for (std::size_t e = 0; e < want.size(); ++e) {
    ASSERT_NEAR(std::tanh(r.at("pre")[e]), r.at("outputs")[e], 1e-6) << "created " << e;
    ASSERT_EQ(r.at("interim")[e], 2 * r.at("outputs")[e]) << "interimOut " << e;
  }
  const std::size_t stepSize = kShape.B * kShape.O;
  EXPECT_EQ(r.at("final"),
            std::vector<double>(r.at("outputs").end() - stepSize, r.at("outputs").end()));
}

TEST(RnnLoop, ReverseRunsFromTheLastStepAndStoresInPlace) {
  const Problem p(kShape, poplar::FLOAT, 10);
  const auto r = runCustomCell(p, true).results;
  // The reference on the time-reversed input, its steps put back in the original order.
  const std::size_t inStep = kShape.B * kShape.I, outStep = kShape.B * kShape.O;
  std::vector<double> reversed(p.x.size());
  for (std::size_t t = 0; t < kShape.S; ++t)
    std::copy_n(p.x.begin() + t * inStep, inStep, reversed.begin() + (kShape.S - 1 - t) * inStep);
  const auto y = reference::rnnForward(kShape, reference::RnnActivation::TANH, reversed, p.y0,
                                       p.Wff, p.Wfb, p.b);
  std::vector<double> want(y.size());
  for (std::size_t t = 0; t < kShape.S; ++t)
    std::copy_n(y.begin() + t * outStep, outStep, want.begin() + (kShape.S - 1 - t) * outStep);
  expectClose(r.at("outputs"), want, 2e-5, 1e-4, "outputs");
  EXPECT_EQ(r.at("final"),
            std::vector<double>(r.at("outputs").begin(), r.at("outputs").begin() + outStep));
}

TEST(RnnLoop, BadSequencesOptionsAndShardsAreRejected) {
  Harness h(Layout::SINGLE_TILE);
  auto &g = h.graph();
  rnn::RnnParams params(poplar::FLOAT, 2, 3, {4, 5});
  Tensor state = g.addVariable(poplar::FLOAT, {2, 5}, "state");
  Tensor badInput = g.addVariable(poplar::FLOAT, {4, 2, 4}, "badInput");
  rnn::LoopBodyType nothing = [](poplar::Graph &, const rnn::TimeStepState &,
                                 const rnn::RnnBatchwiseFlags &, std::vector<Tensor> &,
                                 const rnn::RnnSlice &, std::vector<Tensor> &,
                                 poplar::program::Sequence *, const poplar::DebugNameAndId &) {
    return poplar::program::Sequence();
  };
  poplar::OptionFlags none;
  try {
    rnn::Rnn(g, params, false, {state}, {}, {badInput}, nullptr, nullptr, {}, {}, h.prog(), nothing,
             1, none);
    ADD_FAILURE() << "no exception";
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find("'inputs'"), std::string::npos) << e.what();
  }
  Tensor created = g.addVariable(poplar::FLOAT, {3, 2, 5}, "created");
  try {
    rnn::Rnn(g, params, false, {state}, {}, {}, nullptr, nullptr, {}, {created}, h.prog(), nothing,
             1, none);
    ADD_FAILURE() << "no exception";
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find("'created'"), std::string::npos) << e.what();
  }
  for (unsigned shards : {0u, 4u}) // at least one step per shard
    try {
      rnn::Rnn(g, params, false, {state}, {}, {}, nullptr, nullptr, {}, {}, h.prog(), nothing,
               shards, none);
      ADD_FAILURE() << "no exception for " << shards << " shards";
    } catch (const poputil::poplibs_error &e) {
      EXPECT_NE(std::string(e.what()).find("numShards"), std::string::npos) << e.what();
    }
  poplar::OptionFlags bad{{"codeReuze", "true"}};
  EXPECT_THROW(rnn::Rnn(g, params, false, {state}, {}, {}, nullptr, nullptr, {}, {}, h.prog(),
                        nothing, 1, bad),
               poplar::invalid_option);
}

} // namespace
