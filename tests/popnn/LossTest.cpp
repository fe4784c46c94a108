// popnn::calcLoss / calcAccuracy / argMax / argMin / topK against double references; the
// softmax + cross-entropy deltas against a central finite difference of the loss with respect to
// the logits; masked labels (MASKED_LABEL_CODE, -1 as INT). Tolerance 1e-5 abs + 1e-4 rel
// (gradients 1e-4 abs + 1e-3 rel).
#include <algorithm>
#include <cmath>

#include <popnn/Loss.hpp>
#include <popnn/NonLinearity.hpp>
#include <popops/Zero.hpp>

#include "PopnnTestHarness.hpp"
#include "popnn/kernels/LossKernels.hpp"

using namespace popnn_test;
using poplar::Tensor;

namespace {

constexpr double kMasked = 4294967295.0; // MASKED_LABEL_CODE as UNSIGNED_INT

std::vector<double> softmaxRef(const std::vector<double> &x, std::size_t cols) {
  std::vector<double> y(x.size());
  for (std::size_t r = 0; r < x.size() / cols; ++r) {
    double m = -INFINITY, s = 0;
    for (std::size_t c = 0; c < cols; ++c)
      m = std::max(m, x[r * cols + c]);
    for (std::size_t c = 0; c < cols; ++c)
      s += std::exp(x[r * cols + c] - m);
    for (std::size_t c = 0; c < cols; ++c)
      y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
  return y;
}

bool masked(double label) { return label == kMasked || label < 0; }

class Loss : public testing::TestWithParam<std::tuple<poplar::Type, Layout>> {};

std::string name(const testing::TestParamInfo<std::tuple<poplar::Type, Layout>> &info) {
  return std::string(std::get<0>(info.param) == poplar::INT ? "Int" : "Unsigned") + "Labels_" +
         layoutName(std::get<1>(info.param));
}

TEST_P(Loss, SumSquaredMatchesReference) {
  const auto &[labelType, layout] = GetParam();
  const std::size_t N = 5, K = 4;
  const auto x = roundTo(poplar::FLOAT, randomValues(N * K, 51, 0, 1));
  const double m = labelType == poplar::INT ? -1 : kMasked;
  const std::vector<double> labels{0, 3, m, 1, 2};
  Harness h(layout);
  auto tx = h.input(poplar::FLOAT, {N, K}, x, "modelOutputs");
  auto tl = h.input(labelType, {N}, labels, "expected");
  auto loss = h.graph().addVariable(poplar::FLOAT, {N}, "loss");
  auto deltas = h.graph().addVariable(poplar::FLOAT, {N, K}, "deltas");
  poputil::mapTensorLinearly(h.graph(), loss);
  poputil::mapTensorLinearly(h.graph(), deltas);
  h.prog().add(popnn::calcLoss(h.graph(), tx, tl, loss, deltas, popnn::SUM_SQUARED_LOSS));
  h.output("loss", loss);
  h.output("deltas", deltas);
  auto r = h.run();
  std::vector<double> wantLoss(N, 0), wantDeltas(N * K, 0);
  for (std::size_t n = 0; n < N; ++n)
    for (std::size_t k = 0; k < K; ++k) {
      if (masked(labels[n]))
        continue;
      const double d = x[n * K + k] - (labels[n] == k ? 1 : 0);
      wantDeltas[n * K + k] = d;
      wantLoss[n] += 0.5 * d * d;
    }
  expectClose(r["loss"], wantLoss, 1e-5, 1e-4, "loss");
  expectClose(r["deltas"], wantDeltas, 1e-5, 1e-4, "deltas");
}

TEST_P(Loss, SoftmaxCrossEntropyDeltasMatchFiniteDifference) {
  const auto &[labelType, layout] = GetParam();
  const std::size_t N = 6, K = 7;
  const auto logits = roundTo(poplar::FLOAT, randomValues(N * K, 52, -3, 3));
  const double m = labelType == poplar::INT ? -1 : kMasked;
  const std::vector<double> labels{6, 0, m, 3, 3, m};
  Harness h(layout);
  auto tx = h.input(poplar::FLOAT, {N, K}, logits, "logits");
  auto tl = h.input(labelType, {N}, labels, "expected");
  auto probs = popnn::nonLinearity(h.graph(), popnn::NonLinearityType::SOFTMAX, tx, h.prog());
  auto loss = h.graph().addVariable(poplar::FLOAT, {N}, "loss");
  auto deltas = h.graph().addVariable(poplar::FLOAT, {N, K}, "deltas");
  auto numCorrect = h.graph().addVariable(poplar::UNSIGNED_INT, {1}, "numCorrect");
  poputil::mapTensorLinearly(h.graph(), loss);
  poputil::mapTensorLinearly(h.graph(), deltas);
  h.graph().setTileMapping(numCorrect, 0);
  popops::zero(h.graph(), numCorrect, h.prog()); // calcLoss adds to it
  h.prog().add(
      popnn::calcLoss(h.graph(), probs, tl, loss, deltas, numCorrect, popnn::CROSS_ENTROPY_LOSS));
  h.output("loss", loss);
  h.output("deltas", deltas);
  h.output("numCorrect", numCorrect);
  auto r = h.run();
  auto ceOf = [&](const std::vector<double> &z, std::size_t row) {
    if (masked(labels[row]))
      return 0.0;
    const auto p = softmaxRef(z, K);
    return -std::log(p[row * K + static_cast<std::size_t>(labels[row])]);
  };
  std::vector<double> wantLoss(N);
  for (std::size_t n = 0; n < N; ++n)
    wantLoss[n] = ceOf(logits, n);
  expectClose(r["loss"], wantLoss, 1e-5, 1e-4, "loss");
  const auto fd = finiteDifference(
      [&](const std::vector<double> &z) {
        double s = 0;
        for (std::size_t n = 0; n < N; ++n)
          s += ceOf(z, n);
        return s;
      },
      logits);
  expectClose(r["deltas"], fd, 1e-4, 1e-3, "deltas");
  double correct = 0;
  for (std::size_t n = 0; n < N; ++n) {
    const auto row = logits.begin() + n * K;
    correct += !masked(labels[n]) &&
               static_cast<double>(std::max_element(row, row + K) - row) == labels[n];
  }
  EXPECT_EQ(r["numCorrect"][0], correct);
}

INSTANTIATE_TEST_SUITE_P(Labels, Loss,
                         testing::Combine(testing::Values(poplar::UNSIGNED_INT, poplar::INT),
                                          testing::Values(Layout::SINGLE_TILE, Layout::MULTI_TILE)),
                         name);

TEST(LossScaling, CrossEntropyWithScaledProbabilities) {
  // SOFTMAX_SCALED outputs with modelOutputScaling = SOFTMAX_SCALING and deltasScale = 8.
  const std::size_t N = 3, K = 5;
  const auto logits = roundTo(poplar::FLOAT, randomValues(N * K, 53));
  const std::vector<double> labels{1, 4, 0};
  Harness h(Layout::MULTI_TILE);
  auto tx = h.input(poplar::FLOAT, {N, K}, logits, "logits");
  auto tl = h.input(poplar::UNSIGNED_INT, {N}, labels, "expected");
  float scaling = 0;
  auto probs = popnn::nonLinearity(h.graph(), popnn::NonLinearityType::SOFTMAX_SCALED, tx, scaling,
                                   h.prog());
  auto ds = h.input(poplar::FLOAT, {1}, {8.0}, "deltasScale");
  auto mos = h.input(poplar::FLOAT, {1}, {scaling}, "modelOutputScaling");
  auto loss = h.graph().addVariable(poplar::FLOAT, {N}, "loss");
  auto deltas = h.graph().addVariable(poplar::FLOAT, {N, K}, "deltas");
  poputil::mapTensorLinearly(h.graph(), loss);
  poputil::mapTensorLinearly(h.graph(), deltas);
  h.prog().add(
      popnn::calcLoss(h.graph(), probs, tl, loss, deltas, ds, mos, popnn::CROSS_ENTROPY_LOSS));
  h.output("loss", loss);
  h.output("deltas", deltas);
  auto r = h.run();
  const auto p = softmaxRef(logits, K);
  std::vector<double> wantLoss(N), wantDeltas(N * K);
  for (std::size_t n = 0; n < N; ++n) {
    wantLoss[n] = -std::log(p[n * K + static_cast<std::size_t>(labels[n])]);
    for (std::size_t k = 0; k < K; ++k)
      wantDeltas[n * K + k] = 8 * (p[n * K + k] - (labels[n] == k ? 1 : 0));
  }
  expectClose(r["loss"], wantLoss, 1e-5, 1e-4, "loss");
  expectClose(r["deltas"], wantDeltas, 1e-4, 1e-4, "deltas");
}

TEST(Accuracy, ArgMaxArgMinTopKAndCounting) {
  const std::vector<double> x{1, 5, 5, 0, /**/ 9, 2, 3, 9, /**/ -1, -2, -3, -4};
  const std::vector<double> labels{1, 3, kMasked};
  Harness h(Layout::MULTI_TILE);
  auto tx = h.input(poplar::FLOAT, {3, 4}, x, "x");
  auto tl = h.input(poplar::UNSIGNED_INT, {3}, labels, "labels");
  auto numCorrect = h.graph().addVariable(poplar::UNSIGNED_INT, {1}, "numCorrect");
  h.graph().setTileMapping(numCorrect, 0);
  popops::zero(h.graph(), numCorrect, h.prog()); // calcAccuracy adds to it
  h.prog().add(popnn::calcAccuracy(h.graph(), tx, tl, numCorrect));
  h.output("numCorrect", numCorrect);
  h.output("argMax", popnn::argMax(h.graph(), tx, h.prog()));
  h.output("argMin", popnn::argMin(h.graph(), tx, h.prog()));
  poplar::Tensor indices;
  h.output("top2", popnn::topK(h.graph(), tx, indices, 2, true, h.prog()));
  h.output("top2idx", indices);
  auto r = h.run();
  // Ties go to the lower index: row 1's arg max is 0, not its label 3.
  EXPECT_EQ(r["numCorrect"], std::vector<double>{1});
  EXPECT_EQ(r["argMax"], (std::vector<double>{1, 0, 0}));
  EXPECT_EQ(r["argMin"], (std::vector<double>{3, 1, 3}));
  EXPECT_EQ(r["top2"], (std::vector<double>{5, 5, 9, 9, -1, -2}));
  EXPECT_EQ(r["top2idx"], (std::vector<double>{1, 2, 0, 3, 0, 1}));
}

// PopLibs' maxAndArgMax / minAndArgMin return each row's extreme value together with its
// index (the same index argMax / argMin give; the lowest index wins a tie).
TEST(Accuracy, MaxAndArgMaxMinAndArgMin) {
  const std::vector<double> x{1, 5, 5, 0, /**/ 9, 2, 3, 9, /**/ -1, -2, -3, -4};
  Harness h(Layout::MULTI_TILE);
  auto tx = h.input(poplar::FLOAT, {3, 4}, x, "x");
  auto [maxV, maxI] = popnn::maxAndArgMax(h.graph(), tx, h.prog());
  auto [minV, minI] = popnn::minAndArgMin(h.graph(), tx, h.prog());
  EXPECT_EQ(maxI.elementType(), poplar::UNSIGNED_INT);
  h.output("maxV", maxV);
  h.output("maxI", maxI);
  h.output("minV", minV);
  h.output("minI", minI);
  auto r = h.run();
  std::vector<double> wantMaxV, wantMaxI, wantMinV, wantMinI;
  for (std::size_t row = 0; row < 3; ++row) {
    const auto first = x.begin() + row * 4;
    const auto mx = std::max_element(first, first + 4);
    const auto mn = std::min_element(first, first + 4);
    wantMaxV.push_back(*mx);
    wantMaxI.push_back(double(mx - first));
    wantMinV.push_back(*mn);
    wantMinI.push_back(double(mn - first));
  }
  EXPECT_EQ(r["maxV"], wantMaxV);
  EXPECT_EQ(r["maxI"], wantMaxI);
  EXPECT_EQ(r["minV"], wantMinV);
  EXPECT_EQ(r["minI"], wantMinI);
}

TEST(LossHalf, CrossEntropyAndSumSquaredMatchReference) {
  // HALF model outputs take the composed popops path; tolerance 2e-3 abs + 2e-3 rel.
  const std::size_t N = 4, K = 6;
  const auto logits = randomValues(N * K, 54);
  const auto probs = roundTo(poplar::HALF, softmaxRef(logits, K));
  const std::vector<double> labels{5, kMasked, 0, 2};
  Harness h(Layout::MULTI_TILE);
  auto tp = h.input(poplar::HALF, {N, K}, probs, "probs");
  auto tl = h.input(poplar::UNSIGNED_INT, {N}, labels, "labels");
  std::map<std::string, std::pair<Tensor, Tensor>> outs;
  for (auto type : {popnn::CROSS_ENTROPY_LOSS, popnn::SUM_SQUARED_LOSS}) {
    const std::string name = type == popnn::CROSS_ENTROPY_LOSS ? "ce" : "ssq";
    auto loss = h.graph().addVariable(poplar::HALF, {N}, name + "Loss");
    auto deltas = h.graph().addVariable(poplar::HALF, {N, K}, name + "Deltas");
    poputil::mapTensorLinearly(h.graph(), loss);
    poputil::mapTensorLinearly(h.graph(), deltas);
    h.prog().add(popnn::calcLoss(h.graph(), tp, tl, loss, deltas, type));
    h.output(name + "Loss", loss);
    h.output(name + "Deltas", deltas);
  }
  auto r = h.run();
  std::vector<double> ceLoss(N, 0), ssqLoss(N, 0), deltas(N * K, 0);
  for (std::size_t n = 0; n < N; ++n) {
    if (masked(labels[n]))
      continue;
    ceLoss[n] = -std::log(probs[n * K + static_cast<std::size_t>(labels[n])]);
    for (std::size_t k = 0; k < K; ++k) {
      deltas[n * K + k] = probs[n * K + k] - (labels[n] == k ? 1 : 0);
      ssqLoss[n] += 0.5 * deltas[n * K + k] * deltas[n * K + k];
    }
  }
  expectClose(r["ceLoss"], ceLoss, 2e-3, 2e-3, "half cross entropy loss");
  expectClose(r["ceDeltas"], deltas, 2e-3, 2e-3, "half cross entropy deltas");
  expectClose(r["ssqLoss"], ssqLoss, 2e-3, 2e-3, "half sum squared loss");
  expectClose(r["ssqDeltas"], deltas, 2e-3, 2e-3, "half sum squared deltas");
}

TEST(LossKernels, MatchReferences) {
  using namespace tessera::codelets::popnn;
  std::mt19937 gen(8);
  std::uniform_real_distribution<float> dist(0, 1);
  for (std::size_t n : {1, 3, 16, 37, 100}) {
    std::vector<float> p(n), got(n), want(n);
    for (auto &x : p)
      x = dist(gen);
    const std::size_t label = n / 2;
    const float ceGot = crossEntropyRowKernel()(p.data(), got.data(), n, label, 0.5f, 3.0f);
    const float ceWant = crossEntropyRowReference(p.data(), want.data(), n, label, 0.5f, 3.0f);
    EXPECT_EQ(got, want) << "cross entropy deltas, n " << n;
    EXPECT_EQ(ceGot, ceWant) << "cross entropy loss, n " << n;
    const float ssqGot = sumSquaredRowKernel()(p.data(), got.data(), n, label);
    const float ssqWant = sumSquaredRowReference(p.data(), want.data(), n, label);
    EXPECT_EQ(got, want) << "sum squared deltas, n " << n;
    EXPECT_NEAR(ssqGot, ssqWant, 1e-6 * n) << "sum squared loss, n " << n;
  }
}

TEST(LossKernels, LabelIsRowMaxPicksAsArgMaxDoes) {
  // Rows of few distinct values (many ties) with NaNs sprinkled in, every label position.
  using namespace tessera::codelets::popnn;
  std::mt19937 gen(9);
  for (std::size_t n : {1, 2, 7, 16, 17, 40, 100}) {
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<float> p(n);
      for (auto &x : p) {
        x = static_cast<float>(gen() % 4);
        if (gen() % 13 == 0)
          x = std::nanf("");
      }
      for (std::size_t label = 0; label < n; ++label)
        ASSERT_EQ(labelIsRowMaxKernel()(p.data(), n, label),
                  labelIsRowMaxReference(p.data(), n, label))
            << "n " << n << " trial " << trial << " label " << label << " row "
            << ::testing::PrintToString(p);
    }
  }
}

} // namespace

// PopLibs' accuracy vertex treats numCorrect as InOut: it adds the batch's correct count to the
// value already there and never clears it. A program that zeroes the counter once and then
// evaluates two batches therefore reads the sum of both batches' counts.
TEST(Accuracy, AddsEachBatchToNumCorrect) {
  const std::vector<double> batchA{1, 5, 0, /**/ 9, 2, 3, /**/ 0, 0, 7}; // arg max 1, 0, 2
  const std::vector<double> batchB{4, 1, 2, /**/ 0, 3, 1, /**/ 2, 8, 1}; // arg max 0, 1, 1
  Harness h(Layout::MULTI_TILE);
  auto xa = h.input(poplar::FLOAT, {3, 3}, batchA, "xa");
  auto xb = h.input(poplar::FLOAT, {3, 3}, batchB, "xb");
  auto la = h.input(poplar::UNSIGNED_INT, {3}, {1, 0, 0}, "la"); // 2 right
  auto lb = h.input(poplar::UNSIGNED_INT, {3}, {2, 1, 0}, "lb"); // 1 right
  auto numCorrect = h.graph().addVariable(poplar::UNSIGNED_INT, {1}, "numCorrect");
  h.graph().setTileMapping(numCorrect, 0);
  auto afterA = h.graph().clone(numCorrect, "afterA");
  popops::zero(h.graph(), numCorrect, h.prog());
  h.prog().add(popnn::calcAccuracy(h.graph(), xa, la, numCorrect));
  h.prog().add(poplar::program::Copy(numCorrect, afterA));
  h.prog().add(popnn::calcAccuracy(h.graph(), xb, lb, numCorrect));
  h.output("afterA", afterA);
  h.output("numCorrect", numCorrect);
  auto r = h.run();
  EXPECT_EQ(r["afterA"], std::vector<double>{2});
  EXPECT_EQ(r["numCorrect"], std::vector<double>{3});
}

// calcLoss with numCorrect is documented as calcLoss followed by calcAccuracy, so it adds to
// the counter too: a counter holding 5 before a batch with 2 correct rows holds 7 after it.
TEST(Accuracy, CalcLossAddsToNumCorrect) {
  const std::vector<double> x{0.1, 0.7, 0.2, /**/ 0.6, 0.3, 0.1}; // arg max 1, 0
  Harness h(Layout::SINGLE_TILE);
  auto tx = h.input(poplar::FLOAT, {2, 3}, x, "x");
  auto tl = h.input(poplar::UNSIGNED_INT, {2}, {1, 0}, "labels");
  auto start = h.input(poplar::UNSIGNED_INT, {1}, {5}, "start");
  auto loss = h.graph().addVariable(poplar::FLOAT, {2}, "loss");
  auto deltas = h.graph().addVariable(poplar::FLOAT, {2, 3}, "deltas");
  auto numCorrect = h.graph().addVariable(poplar::UNSIGNED_INT, {1}, "numCorrect");
  for (const auto &t : {loss, deltas, numCorrect})
    h.graph().setTileMapping(t, 0);
  h.prog().add(poplar::program::Copy(start, numCorrect));
  h.prog().add(
      popnn::calcLoss(h.graph(), tx, tl, loss, deltas, numCorrect, popnn::SUM_SQUARED_LOSS));
  h.output("numCorrect", numCorrect);
  EXPECT_EQ(h.run()["numCorrect"], std::vector<double>{7});
}

// The FLOAT loss vertices count correct rows in their own pass over each row; the count must be
// calcAccuracy's (argMax by topK): ties go to the lower index, NaN is the largest value, masked
// rows never count.
TEST(Accuracy, CalcLossCountsAsCalcAccuracyWithTiesNaNAndMaskedRows) {
  const double nan = std::nan("");
  const std::vector<double> x{1, 3,   3, 0,   // tie: argmax 1
                              1, 3,   3, 0,   // tie: label 2 loses
                              2, nan, 5, nan, // first NaN: argmax 1
                              2, nan, 5, nan, // label 3, the second NaN, loses
                              0, 1,   2, 9,   // argmax 3, but the row is masked
                              4, 1,   2, 3};  // argmax 0
  const std::vector<double> labels{1, 2, 1, 3, double(MASKED_LABEL_CODE), 0}; // 3 right
  Harness h(Layout::MULTI_TILE);
  auto tx = h.input(poplar::FLOAT, {6, 4}, x, "x");
  auto tl = h.input(poplar::UNSIGNED_INT, {6}, labels, "labels");
  auto loss = h.graph().addVariable(poplar::FLOAT, {6}, "loss");
  auto deltas = h.graph().clone(tx, "deltas");
  auto fused = h.graph().addVariable(poplar::UNSIGNED_INT, {1}, "fused");
  auto separate = h.graph().clone(fused, "separate");
  for (const auto &t : {loss, fused, separate})
    h.graph().setTileMapping(t, 0);
  popops::zero(h.graph(), fused, h.prog());
  popops::zero(h.graph(), separate, h.prog());
  h.prog().add(popnn::calcLoss(h.graph(), tx, tl, loss, deltas, fused, popnn::CROSS_ENTROPY_LOSS));
  h.prog().add(popnn::calcAccuracy(h.graph(), tx, tl, separate));
  h.output("fused", fused);
  h.output("separate", separate);
  auto r = h.run();
  EXPECT_EQ(r["separate"], std::vector<double>{3});
  EXPECT_EQ(r["fused"], std::vector<double>{3});
}
