// The classifier loss, one-hot and label-smoothed: the mean cross entropy over the batch against
// (1 − ε)·one-hot + ε/K computed on the host in double, its gradient against the closed form
// (softmax − target) / B and against central finite differences of the host loss, a masked row
// adding nothing, and ε = 0 the one-hot loss exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <popnn/Loss.hpp>

#include <tessera/apps/Errors.hpp>
#include <tessera/apps/layers/SoftmaxCrossEntropy.hpp>

#include "LayerReferences.hpp"
#include "LayerRig.hpp"

namespace tessera::apps {
namespace {

using namespace test;

constexpr std::size_t kBatch = 5, kClasses = 7;
constexpr std::uint32_t kMasked = MASKED_LABEL_CODE;

/// softmax of one row of logits.
Vec softmaxRow(const Vec &z, std::size_t row) {
  double max = z[row * kClasses];
  for (std::size_t k = 0; k < kClasses; ++k)
    max = std::max(max, z[row * kClasses + k]);
  Vec p(kClasses);
  double sum = 0;
  for (std::size_t k = 0; k < kClasses; ++k)
    sum += p[k] = std::exp(z[row * kClasses + k] - max);
  for (auto &e : p)
    e /= sum;
  return p;
}

/// The smoothed target of `label` (all zero for a masked row).
Vec target(std::uint32_t label, double epsilon) {
  if (label == kMasked)
    return Vec(kClasses, 0.0);
  Vec t(kClasses, epsilon / double(kClasses));
  t[label] += 1 - epsilon;
  return t;
}

/// (1/B) Σ_rows −Σ_k t_k log p_k.
double referenceLoss(const Vec &z, const std::vector<std::uint32_t> &labels, double epsilon) {
  double loss = 0;
  for (std::size_t b = 0; b < kBatch; ++b) {
    const Vec p = softmaxRow(z, b), t = target(labels[b], epsilon);
    for (std::size_t k = 0; k < kClasses; ++k)
      loss -= t[k] * std::log(p[k]);
  }
  return loss / double(kBatch);
}

/// (softmax − target) / B, 0 on a masked row.
Vec referenceGradient(const Vec &z, const std::vector<std::uint32_t> &labels, double epsilon) {
  Vec grad(z.size(), 0.0);
  for (std::size_t b = 0; b < kBatch; ++b) {
    if (labels[b] == kMasked)
      continue;
    const Vec p = softmaxRow(z, b), t = target(labels[b], epsilon);
    for (std::size_t k = 0; k < kClasses; ++k)
      grad[b * kClasses + k] = (p[k] - t[k]) / double(kBatch);
  }
  return grad;
}

struct LossRun {
  double loss;
  Vec gradient;
  unsigned correct;
};

LossRun runLoss(const Vec &logits, const std::vector<std::uint32_t> &labels, float epsilon) {
  LayerRig rig(4);
  poplar::Tensor z = rig.input("logits", {kBatch, kClasses});
  poplar::Tensor y = rig.graph().addVariable(poplar::UNSIGNED_INT, {kBatch}, "labels");
  rig.graph().setTileMapping(y, 0);
  rig.graph().createHostWrite("labels", y);
  poplar::program::Sequence prog;
  const LossOutputs out = softmaxCrossEntropy(rig.graph(), z, y, true, prog, epsilon);
  rig.output("loss", out.loss);
  rig.output("gradient", out.gradient);
  rig.graph().createHostRead("correct", out.numCorrect);
  rig.load({prog});
  rig.write("logits", logits);
  rig.engine().writeTensor("labels", labels.data(), labels.data() + labels.size());
  rig.run(1);
  unsigned correct = 0;
  rig.engine().readTensor("correct", &correct, &correct + 1);
  return {rig.read("loss").at(0), rig.read("gradient"), correct};
}

class SoftmaxCrossEntropyLayer : public ::testing::TestWithParam<float> {};

TEST_P(SoftmaxCrossEntropyLayer, LossAndGradientMatchTheSmoothedTargetClosedForm) {
  const double epsilon = GetParam();
  Vec logits = randomValues(kBatch * kClasses, 3, -3.0, 3.0);
  logits[2 * kClasses + 4] = 12.0; // a confident row: p of the others near e^-15
  const std::vector<std::uint32_t> labels = {1, 6, 4, kMasked, 0};
  const LossRun run = runLoss(logits, labels, float(epsilon));

  EXPECT_NEAR(run.loss, referenceLoss(logits, labels, epsilon), 1e-6);
  expectClose(run.gradient, referenceGradient(logits, labels, epsilon), 1e-6, "gradient");
  auto loss = [&] { return referenceLoss(logits, labels, epsilon); };
  expectClose(run.gradient, finiteDifference(logits, loss), 1e-6, "finite differences");
  for (std::size_t k = 0; k < kClasses; ++k)
    EXPECT_EQ(run.gradient[3 * kClasses + k], 0.0) << "the masked row has no gradient";
}

INSTANTIATE_TEST_SUITE_P(LabelSmoothing, SoftmaxCrossEntropyLayer,
                         ::testing::Values(0.0f, 0.1f, 0.5f), [](const auto &info) {
                           return "Epsilon" + std::to_string(int(info.param * 100));
                         });

TEST(SoftmaxCrossEntropyLayer, SmoothingRaisesTheLossOfAConfidentRowAndKeepsAccuracy) {
  Vec logits(kBatch * kClasses, 0.0);
  const std::vector<std::uint32_t> labels = {0, 1, 2, 3, 4};
  for (std::size_t b = 0; b < kBatch; ++b)
    logits[b * kClasses + labels[b]] = 20.0; // all right, p_label ≈ 1
  const LossRun plain = runLoss(logits, labels, 0.0f), smoothed = runLoss(logits, labels, 0.1f);
  EXPECT_LT(plain.loss, 1e-6);
  // Each row: 0.1 · mean_k(−log p_k) ≈ 0.1 · 20 · 6/7.
  EXPECT_NEAR(smoothed.loss, 0.1 * 20.0 * 6.0 / 7.0, 1e-4);
  EXPECT_EQ(plain.correct, kBatch);
  EXPECT_EQ(smoothed.correct, kBatch);
}

TEST(SoftmaxCrossEntropyLayer, SmoothingOutsideZeroToOneIsRefused) {
  for (float epsilon : {-0.1f, 1.0f}) {
    LayerRig rig(2);
    poplar::Tensor z = rig.input("logits", {2, 3});
    poplar::Tensor y = rig.graph().addVariable(poplar::UNSIGNED_INT, {2}, "labels");
    rig.graph().setTileMapping(y, 0);
    poplar::program::Sequence prog;
    try {
      softmaxCrossEntropy(rig.graph(), z, y, true, prog, epsilon);
      ADD_FAILURE() << epsilon << " accepted";
    } catch (const app_error &e) {
      EXPECT_NE(std::string(e.what()).find("label smoothing"), std::string::npos) << e.what();
    }
  }
}

} // namespace
} // namespace tessera::apps
