// popnn::ctc loss and gradient against reference/CTCLoss.hpp (itself checked against brute-force
// enumeration of every path and against finite differences): log-probability and logits inputs,
// FLOAT and HALF, varying data and label lengths, repeated labels, impossible alignments, the
// includeSoftmaxGradient option, inputs on one tile or mapped by the plan, 1 and 2 host threads,
// and every error path.
#include <cmath>
#include <limits>
#include <sstream>

#include <popnn/CTCLoss.hpp>
#include <poplar/exceptions.hpp>
#include <poputil/exceptions.hpp>
#include <reference/CTCLoss.hpp>
#include <reference/Common.hpp>

#include "PopnnTestHarness.hpp"

using namespace popnn_test;

namespace {

/// Row-wise log-softmax of [rows][C] values.
std::vector<double> logSoftmaxRows(const std::vector<double> &x, std::size_t C) {
  std::vector<double> y(x.size());
  for (std::size_t r = 0; r < x.size() / C; ++r) {
    double m = -INFINITY, s = 0;
    for (std::size_t k = 0; k < C; ++k)
      m = std::max(m, x[r * C + k]);
    for (std::size_t k = 0; k < C; ++k)
      s += std::exp(x[r * C + k] - m);
    for (std::size_t k = 0; k < C; ++k)
      y[r * C + k] = x[r * C + k] - m - std::log(s);
  }
  return y;
}

/// A batch: data [T][B][C], labels [B][maxL], lengths.
struct Batch {
  std::size_t T, B, C, maxL;
  unsigned blank;
  std::vector<double> data; ///< logits or log-probabilities, [T][B][C]
  std::vector<std::vector<unsigned>> labels;
  std::vector<unsigned> dataLengths;

  std::vector<double> labelsFlat() const {
    std::vector<double> f(B * maxL, 0.0);
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t i = 0; i < labels[b].size(); ++i)
        f[b * maxL + i] = labels[b][i];
    return f;
  }
  std::vector<double> labelLengths() const {
    std::vector<double> l;
    for (const auto &x : labels)
      l.push_back(static_cast<double>(x.size()));
    return l;
  }
  /// Entry b's [T][C] rows.
  std::vector<double> entry(const std::vector<double> &v, std::size_t b) const {
    std::vector<double> e(T * C);
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t k = 0; k < C; ++k)
        e[t * C + k] = v[(t * B + b) * C + k];
    return e;
  }
};

/// Four entries: full length, shorter data, a repeated label, an empty label.
Batch makeBatch(const poplar::Type &type, bool logits, unsigned seed) {
  Batch b{8, 4, 5, 3, 0, {}, {}, {}};
  b.labels = {{1, 2, 3}, {4, 1}, {2, 2, 3}, {}};
  b.dataLengths = {8, 5, 7, 6};
  auto x = randomValues(b.T * b.B * b.C, seed, -2, 2);
  if (!logits)
    x = logSoftmaxRows(x, b.C);
  b.data = roundTo(type, x);
  return b;
}

struct Variant {
  bool logits;
  bool half;
  Layout layout;
};

class CTCLoss : public testing::TestWithParam<Variant> {};

std::string variantName(const testing::TestParamInfo<Variant> &info) {
  return std::string(info.param.logits ? "Logits" : "LogProbs") +
         (info.param.half ? "_half_" : "_float_") + layoutName(info.param.layout);
}

/// Runs the loss on `batch`; returns {"loss", "grad"}.
std::map<std::string, std::vector<double>> runLoss(const Batch &batch, const poplar::Type &type,
                                                   bool logits, Layout layout,
                                                   const poplar::OptionFlags &options = {},
                                                   unsigned threads = 1) {
  Harness h(layout);
  auto &g = h.graph();
  const poplar::Type outType = type;
  auto plan = popnn::ctc::plan(g, type, outType, static_cast<unsigned>(batch.B),
                               static_cast<unsigned>(batch.T), static_cast<unsigned>(batch.maxL),
                               static_cast<unsigned>(batch.C));
  poplar::Tensor data, labels;
  if (layout == Layout::MULTI_TILE) {
    data = popnn::ctc::createDataInput(g, type, batch.B, batch.T, batch.C, plan);
    labels = popnn::ctc::createLabelsInput(g, poplar::UNSIGNED_INT, batch.B, batch.maxL, plan);
    h.input(data, batch.data, "data");
    h.input(labels, batch.labelsFlat(), "labels");
  } else {
    data = h.input(type, {batch.T, batch.B, batch.C}, batch.data, "data");
    labels = h.input(poplar::UNSIGNED_INT, {batch.B, batch.maxL}, batch.labelsFlat(), "labels");
  }
  std::vector<double> dl(batch.dataLengths.begin(), batch.dataLengths.end());
  auto dataLengths = h.input(poplar::UNSIGNED_INT, {batch.B}, dl, "dataLengths");
  auto labelLengths = h.input(poplar::UNSIGNED_INT, {batch.B}, batch.labelLengths(), "labelLens");
  auto [loss, grad] =
      logits ? popnn::ctc::calcLossAndGradientLogits(g, outType, data, labels, dataLengths,
                                                     labelLengths, h.prog(), batch.blank, plan,
                                                     {}, options)
             : popnn::ctc::calcLossAndGradientLogProbabilities(g, outType, data, labels,
                                                               dataLengths, labelLengths,
                                                               h.prog(), batch.blank, plan, {},
                                                               options);
  EXPECT_EQ(loss.shape(), (std::vector<std::size_t>{batch.B}));
  EXPECT_EQ(grad.shape(), (std::vector<std::size_t>{batch.T, batch.B, batch.C}));
  h.output("loss", loss);
  h.output("grad", grad);
  poplar::OptionFlags engineOptions;
  engineOptions.set("target.hostThreads", std::to_string(threads));
  return h.run(1, engineOptions);
}

/// The reference loss and gradient ([T][B][C]) of the batch.
std::pair<std::vector<double>, std::vector<double>>
referenceLoss(const Batch &batch, bool logits, bool includeSoftmaxGradient = true) {
  std::vector<double> loss(batch.B), grad(batch.data.size());
  for (std::size_t b = 0; b < batch.B; ++b) {
    auto lp = batch.entry(batch.data, b);
    if (logits)
      lp = logSoftmaxRows(lp, batch.C);
    const auto r = reference::ctcLoss(lp, batch.T, batch.C, batch.dataLengths[b],
                                      batch.labels[b], batch.blank, includeSoftmaxGradient);
    loss[b] = r.loss;
    for (std::size_t t = 0; t < batch.T; ++t)
      for (std::size_t k = 0; k < batch.C; ++k)
        grad[(t * batch.B + b) * batch.C + k] = r.gradient[t * batch.C + k];
  }
  return {loss, grad};
}

TEST_P(CTCLoss, LossAndGradientMatchReference) {
  const auto v = GetParam();
  const poplar::Type type = v.half ? poplar::HALF : poplar::FLOAT;
  const Batch batch = makeBatch(type, v.logits, 101);
  auto r = runLoss(batch, type, v.logits, v.layout);
  const auto [lossRef, gradRef] = referenceLoss(batch, v.logits);
  const double tol = v.half ? 2e-2 : 1e-4;
  expectClose(r["loss"], lossRef, tol, tol, "loss");
  expectClose(r["grad"], gradRef, v.half ? 5e-3 : 1e-5, tol, "gradient");
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, CTCLoss,
    testing::Values(Variant{false, false, Layout::SINGLE_TILE},
                    Variant{false, false, Layout::MULTI_TILE},
                    Variant{true, false, Layout::SINGLE_TILE},
                    Variant{true, false, Layout::MULTI_TILE},
                    Variant{false, true, Layout::SINGLE_TILE},
                    Variant{false, true, Layout::MULTI_TILE},
                    Variant{true, true, Layout::MULTI_TILE}),
    variantName);

TEST(CTCLossReference, MatchesBruteForceEnumeration) {
  const std::size_t T = 5, C = 3;
  const auto lp = logSoftmaxRows(randomValues(T * C, 111), C);
  for (const std::vector<unsigned> &label :
       {std::vector<unsigned>{}, {1}, {2, 1}, {1, 1}, {1, 2, 1}, {2, 2, 2}})
    for (std::size_t len : {0u, 1u, 3u, 5u}) {
      const double brute = reference::ctcLossBruteForce(lp, C, len, label, 0);
      const double recursive = reference::ctcLoss(lp, T, C, len, label, 0).loss;
      if (std::isinf(brute))
        EXPECT_TRUE(std::isinf(recursive)) << "length " << len;
      else
        EXPECT_NEAR(recursive, brute, 1e-9) << "length " << len;
    }
}

TEST(CTCLossReference, GradientIsTheLogitGradientOfTheLoss) {
  const std::size_t T = 6, C = 4;
  const auto logits = randomValues(T * C, 112);
  const std::vector<unsigned> label{1, 3, 3};
  const auto r = reference::ctcLoss(logSoftmaxRows(logits, C), T, C, T, label, 0);
  const auto fd = reference::finiteDifference(
      [&](const std::vector<double> &x) {
        return reference::ctcLoss(logSoftmaxRows(x, C), T, C, T, label, 0).loss;
      },
      logits, 1e-6);
  for (std::size_t i = 0; i < fd.size(); ++i)
    EXPECT_NEAR(r.gradient[i], fd[i], 1e-6) << i;
}

TEST(CTCLossOptions, WithoutSoftmaxGradientGivesTheLogProbabilityGradient) {
  const Batch batch = makeBatch(poplar::FLOAT, false, 121);
  poplar::OptionFlags options{{"includeSoftmaxGradient", "false"}};
  auto r = runLoss(batch, poplar::FLOAT, false, Layout::MULTI_TILE, options);
  const auto [lossRef, gradRef] = referenceLoss(batch, false, false);
  expectClose(r["loss"], lossRef, 1e-4, 1e-4, "loss");
  expectClose(r["grad"], gradRef, 1e-5, 1e-4, "gradient without softmax");
}

TEST(CTCLossAlignment, TooFewTimestepsGiveInfiniteLossAndZeroGradient) {
  Batch batch = makeBatch(poplar::FLOAT, false, 131);
  // Entry 2's label [2, 2, 3] needs 4 timesteps (a blank between the repeats); give it 3.
  batch.dataLengths[2] = 3;
  // Entry 3 (empty label) with no timesteps has loss 0.
  batch.dataLengths[3] = 0;
  auto r = runLoss(batch, poplar::FLOAT, false, Layout::MULTI_TILE);
  EXPECT_TRUE(std::isinf(r["loss"][2]) && r["loss"][2] > 0) << r["loss"][2];
  EXPECT_EQ(r["loss"][3], 0.0);
  for (std::size_t t = 0; t < batch.T; ++t)
    for (std::size_t k = 0; k < batch.C; ++k) {
      EXPECT_EQ(r["grad"][(t * batch.B + 2) * batch.C + k], 0.0);
      EXPECT_EQ(r["grad"][(t * batch.B + 3) * batch.C + k], 0.0);
    }
  const auto [lossRef, gradRef] = referenceLoss(batch, false);
  EXPECT_NEAR(r["loss"][0], lossRef[0], 1e-4);
  EXPECT_NEAR(r["loss"][1], lossRef[1], 1e-4);
}

TEST(CTCLossThreads, ResultsAreBitIdenticalForOneAndTwoHostThreads) {
  const Batch batch = makeBatch(poplar::FLOAT, true, 141);
  const auto one = runLoss(batch, poplar::FLOAT, true, Layout::MULTI_TILE, {}, 1);
  const auto two = runLoss(batch, poplar::FLOAT, true, Layout::MULTI_TILE, {}, 2);
  EXPECT_EQ(one.at("loss"), two.at("loss"));
  EXPECT_EQ(one.at("grad"), two.at("grad"));
}

// ---- Errors --------------------------------------------------------------------------------

/// Expects `f` to throw E (poplibs_error by default; options throw poplar::invalid_option) whose
/// message contains `culprit`.
template <class E = poputil::poplibs_error, class F>
void expectError(F f, const std::string &culprit) {
  try {
    f();
    ADD_FAILURE() << "expected an exception naming " << culprit;
  } catch (const E &e) {
    EXPECT_NE(std::string(e.what()).find(culprit), std::string::npos) << e.what();
  }
}

struct ErrorSetup {
  Harness h{Layout::SINGLE_TILE};
  popnn::ctc::Plan plan;
  poplar::Tensor data, labels, dataLengths, labelLengths;
  ErrorSetup() {
    auto &g = h.graph();
    plan = popnn::ctc::plan(g, poplar::FLOAT, poplar::FLOAT, 2, 4, 2, 3);
    data = popnn::ctc::createDataInput(g, poplar::FLOAT, 2, 4, 3, plan);
    labels = popnn::ctc::createLabelsInput(g, poplar::UNSIGNED_INT, 2, 2, plan);
    dataLengths = g.addVariable(poplar::UNSIGNED_INT, {2}, "dataLengths");
    labelLengths = g.addVariable(poplar::UNSIGNED_INT, {2}, "labelLengths");
    g.setTileMapping(dataLengths, 0);
    g.setTileMapping(labelLengths, 0);
  }
  void call(const poplar::Tensor &d, const poplar::Tensor &l, const poplar::Tensor &dl,
            const poplar::Tensor &ll, unsigned blank = 0, const poplar::OptionFlags &opts = {},
            const poplar::Type &outType = poplar::FLOAT) {
    popnn::ctc::calcLossAndGradientLogProbabilities(h.graph(), outType, d, l, dl, ll, h.prog(),
                                                    blank, plan, {}, opts);
  }
};

TEST(CTCLossErrors, BadArgumentsAreRefusedNamingTheCulprit) {
  ErrorSetup s;
  auto &g = s.h.graph();
  expectError([&] { s.call(s.data, s.labels, s.dataLengths, s.labelLengths, 3); }, "blankClass");
  expectError([&] { s.call(s.data.reshape({4, 6}), s.labels, s.dataLengths, s.labelLengths); },
              "'logProbs'");
  auto intLabels = g.addVariable(poplar::INT, {2, 2}, "intLabels");
  expectError([&] { s.call(s.data, intLabels, s.dataLengths, s.labelLengths); }, "'labels'");
  expectError([&] { s.call(s.data, s.labels, s.dataLengths.slice(0, 1), s.labelLengths); },
              "'dataLengths'");
  auto floatLengths = g.addVariable(poplar::FLOAT, {2}, "floatLengths");
  expectError([&] { s.call(s.data, s.labels, s.dataLengths, floatLengths); }, "'labelLengths'");
  expectError<poplar::invalid_option>(
      [&] {
        s.call(s.data, s.labels, s.dataLengths, s.labelLengths, 0,
               {{"includeSoftmaxGradiant", "true"}});
      },
      "includeSoftmaxGradiant");
  expectError(
      [&] { s.call(s.data, s.labels, s.dataLengths, s.labelLengths, 0, {}, poplar::HALF); },
      "outType");
  auto wideBatch = g.addVariable(poplar::FLOAT, {4, 3, 3}, "wideBatch");
  expectError([&] { s.call(wideBatch, s.labels, s.dataLengths, s.labelLengths); }, "batch size");
  expectError([&] { popnn::ctc::plan(g, poplar::INT, poplar::FLOAT, 2, 4, 2, 3); }, "inType");
  expectError<poplar::invalid_option>(
      [&] {
        popnn::ctc::plan(g, poplar::FLOAT, poplar::FLOAT, 2, 4, 2, 3,
                         {{"availableMemoryProportion", "2"}});
      },
      "availableMemoryProportion");
}

TEST(CTCPlan, PlansCompareAndPrint) {
  Harness h(Layout::MULTI_TILE);
  auto a = popnn::ctc::plan(h.graph(), poplar::FLOAT, poplar::FLOAT, 4, 10, 3, 5);
  auto b = popnn::ctc::plan(h.graph(), poplar::FLOAT, poplar::FLOAT, 4, 10, 3, 5);
  auto c = popnn::ctc::plan(h.graph(), poplar::HALF, poplar::FLOAT, 4, 10, 3, 5);
  EXPECT_TRUE(a == b);
  EXPECT_TRUE(a != c);
  EXPECT_TRUE((a < c) != (c < a));
  popnn::ctc::Plan copy = a;
  EXPECT_TRUE(copy == a);
  std::ostringstream os;
  os << a;
  EXPECT_NE(os.str().find("batchSize 4"), std::string::npos) << os.str();
}

} // namespace
