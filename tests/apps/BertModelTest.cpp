// The whole BERT pre-training graph on small synthetic batches: it learns (a fixed batch is
// overfitted), it is deterministic across host thread counts, and packing sequences into one
// row changes nothing but the layout.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <optional>
#include <random>
#include <sstream>

#include <popnn/Loss.hpp>

#include <tessera/apps/Errors.hpp>

#include "training/PretrainingSession.hpp"

namespace tessera::bert {
namespace {

constexpr std::uint32_t kMaskId = 4, kClsId = 2, kSepId = 3, kFirstWord = 5;

BertConfig smallConfig() {
  BertConfig c = configByName("tiny");
  c.name = "test";
  c.hidden = 32;
  c.heads = 2;
  c.ffn = 64;
  c.vocabSize = 64;
  c.maxPositions = 32;
  c.sequenceLength = 16;
  c.maxPredictions = 3;
  c.maxSequencesPerRow = 2;
  return c;
}

/// One sequence [CLS] a… [SEP] b… [SEP] with `predictions` masked tokens and its labels.
struct Sequence {
  std::vector<std::uint32_t> tokens, segments;
  std::vector<std::uint32_t> maskedPositions, maskedLabels;
  std::uint32_t nspLabel = 0;
};

Sequence makeSequence(std::mt19937 &rng, std::size_t length, std::size_t predictions,
                      std::uint32_t vocab) {
  std::uniform_int_distribution<std::uint32_t> word(kFirstWord, vocab - 1);
  Sequence s;
  const std::size_t sep = length / 2;
  for (std::size_t i = 0; i < length; ++i) {
    const bool special = i == 0 || i == sep || i == length - 1;
    s.tokens.push_back(i == 0 ? kClsId : special ? kSepId : word(rng));
    s.segments.push_back(i <= sep ? 0 : 1);
  }
  for (std::size_t p = 0; p < predictions; ++p) {
    const std::uint32_t position = std::uint32_t(1 + 2 * p); // never special for length ≥ 8
    s.maskedPositions.push_back(position);
    s.maskedLabels.push_back(s.tokens[position]);
    s.tokens[position] = kMaskId;
  }
  s.nspLabel = rng() & 1;
  return s;
}

/// Rows of packed sequences → the device layout. Unused slots are masked out.
HostBatch layOut(const BertConfig &c, const std::vector<std::vector<Sequence>> &rows) {
  const std::size_t S = c.sequenceLength, P = c.maxPredictions, K = c.maxSequencesPerRow;
  const std::size_t B = rows.size();
  HostBatch b;
  b.tokenIds.assign(B * S, 0);
  b.positionIds.assign(B * S, 0);
  b.segmentIds.assign(B * S, 0);
  b.sequenceIds.assign(B * S, 0);
  b.maskedIndices.assign(B * P, 0);
  b.maskedLabels.assign(B * P, MASKED_LABEL_CODE);
  b.clsIndices.assign(B * K, 0);
  b.nspLabels.assign(B * K, MASKED_LABEL_CODE);
  for (std::size_t r = 0; r < B; ++r) {
    std::size_t start = 0, prediction = 0;
    for (std::size_t k = 0; k < rows[r].size(); ++k) {
      const Sequence &s = rows[r][k];
      for (std::size_t i = 0; i < s.tokens.size(); ++i) {
        b.tokenIds[r * S + start + i] = s.tokens[i];
        b.positionIds[r * S + start + i] = std::uint32_t(i);
        b.segmentIds[r * S + start + i] = s.segments[i];
        b.sequenceIds[r * S + start + i] = std::uint32_t(k + 1);
      }
      for (std::size_t p = 0; p < s.maskedPositions.size(); ++p, ++prediction) {
        b.maskedIndices[r * P + prediction] = std::uint32_t(r * S + start + s.maskedPositions[p]);
        b.maskedLabels[r * P + prediction] = s.maskedLabels[p];
      }
      b.clsIndices[r * K + k] = std::uint32_t(r * S + start);
      b.nspLabels[r * K + k] = s.nspLabel;
      start += s.tokens.size();
    }
  }
  return b;
}

HostBatch randomBatch(const BertConfig &c, std::size_t batch, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::vector<Sequence>> rows;
  for (std::size_t r = 0; r < batch; ++r)
    rows.push_back(
        {makeSequence(rng, c.sequenceLength, c.maxPredictions, std::uint32_t(c.vocabSize))});
  return layOut(c, rows);
}

SessionOptions sessionOptions(const BertConfig &c, std::size_t batch) {
  SessionOptions o;
  o.config = c;
  o.batchSize = batch;
  o.tilesPerIpu = 32;
  // Tiny tensors land on few tiles, and the adaptive optimisers' maps put a vertex per region
  // there: tile 0 needs more than a Mk2 tile's 624 KiB at these shapes (not at real ones).
  o.bytesPerTile = 2 << 20;
  o.seed = 5;
  o.optimiser = OptimiserKind::Sgd;
  o.momentum = 0.9f;
  o.weightDecay = 0.0f;
  return o;
}

TEST(BertModel, OverfitsAFixedBatch) {
  const BertConfig c = smallConfig();
  std::ostringstream log;
  SessionOptions o = sessionOptions(c, 4);
  o.optimiser = OptimiserKind::AdamW;
  o.weightDecay = 0.01f;
  o.stepsPerRun = 10;
  PretrainingSession session(o, log);
  session.initialise();
  const HostBatch batch = randomBatch(c, 4, 1);
  const StepStatistics before = session.evaluate(batch);
  EXPECT_EQ(before.mlmCount, 12.0);
  EXPECT_EQ(before.nspCount, 4.0);
  EXPECT_NEAR(before.mlmLoss, std::log(64.0), 0.5); // uniform over the vocabulary at first
  // 150 steps: dropout stays on, so how fast the loss falls depends on the masks drawn (after
  // 100 steps one dropout stream left 0.10x of the first loss, another 0.106x).
  const std::vector<HostBatch> run(10, batch);
  for (int r = 0; r < 15; ++r)
    session.train(run, 0.002);
  const StepStatistics after = session.evaluate(batch);
  EXPECT_LT(after.mlmLoss, 0.1 * before.mlmLoss) << log.str();
  EXPECT_EQ(after.mlmAccuracy(), 1.0);
  EXPECT_EQ(after.nspAccuracy(), 1.0);
}

/// Plain SGD without momentum or decay at rate 1 moves each weight by exactly −gradient, so the
/// device's gradients are the difference of the parameters before and after one step; checks
/// three elements of every parameter against central differences of `lossOf` (which is
/// called with the session restored to the perturbed state).
void expectGradientsMatchFiniteDifferences(
    const BertConfig &c, unsigned seed,
    const std::function<double(PretrainingSession &, const HostBatch &)> &lossOf) {
  std::ostringstream log;
  SessionOptions o = sessionOptions(c, 2);
  o.momentum = 0.0f;
  PretrainingSession session(o, log);
  session.initialise();
  const HostBatch batch = randomBatch(c, 2, 4);
  apps::CheckpointState start, stepped;
  session.saveState(start);
  session.train({batch}, 1.0);
  session.saveState(stepped);
  const double h = 1e-2;
  std::mt19937 rng(seed);
  for (std::size_t t = 0; t < start.tensors.size(); ++t) {
    const auto &tensor = start.tensors[t];
    for (int sample = 0; sample < 3; ++sample) {
      const std::size_t i = rng() % tensor.data.size();
      const double gradient = double(tensor.data[i]) - double(stepped.tensors[t].data[i]);
      auto lossAt = [&](double delta) {
        apps::CheckpointState moved = start;
        moved.tensors[t].data[i] = float(double(tensor.data[i]) + delta);
        session.restoreState(moved);
        return lossOf(session, batch);
      };
      const double fd = (lossAt(h) - lossAt(-h)) / (2 * h);
      EXPECT_NEAR(gradient, fd, 2e-3 + 0.05 * std::abs(fd)) << tensor.name << "[" << i << "]";
    }
  }
}

TEST(BertModel, GradientsMatchFiniteDifferencesOfTheLoss) {
  BertConfig c = smallConfig();
  c.hiddenDropout = c.attentionDropout = 0.0f;
  expectGradientsMatchFiniteDifferences(c, 2, [](PretrainingSession &s, const HostBatch &b) {
    const StepStatistics e = s.evaluate(b);
    return e.mlmLoss + e.nspLoss;
  });
}

TEST(BertModel, GradientsWithDropoutMatchFiniteDifferencesOfTheTrainingLoss) {
  // With dropout on, the loss is the training pass's under one mask. Restoring the state also
  // restores the dropout seed, so a step at rate 0 measures the loss under the same mask the
  // rate-1 step differentiated: forward and backward must drop the same elements.
  BertConfig c = smallConfig();
  c.hiddenDropout = c.attentionDropout = 0.25f;
  expectGradientsMatchFiniteDifferences(c, 3, [](PretrainingSession &s, const HostBatch &b) {
    const StepStatistics e = s.train({b}, 0.0);
    return e.mlmLoss + e.nspLoss;
  });
}

std::vector<apps::NamedTensor> trainedParameters(unsigned hostThreads) {
  const BertConfig c = smallConfig();
  std::ostringstream log;
  SessionOptions o = sessionOptions(c, 4);
  o.hostThreads = hostThreads;
  o.stepsPerRun = 2;
  PretrainingSession session(o, log);
  session.initialise();
  session.train({randomBatch(c, 4, 1), randomBatch(c, 4, 2)}, 0.01);
  apps::CheckpointState state;
  session.saveState(state);
  return state.tensors;
}

std::vector<apps::NamedTensor> parametersAfterTwelveSteps(unsigned stepsPerRun) {
  const BertConfig c = smallConfig(); // dropout on
  std::ostringstream log;
  SessionOptions o = sessionOptions(c, 4);
  o.optimiser = OptimiserKind::AdamW;
  o.stepsPerRun = stepsPerRun;
  PretrainingSession session(o, log);
  session.initialise();
  std::vector<HostBatch> all;
  for (std::uint32_t i = 0; i < 12; ++i)
    all.push_back(randomBatch(c, 4, 10 + i % 3));
  for (std::size_t step = 0; step < all.size(); step += stepsPerRun)
    session.train({all.begin() + step, all.begin() + step + stepsPerRun}, 0.003);
  apps::CheckpointState state;
  session.saveState(state);
  return state.tensors;
}

TEST(BertModel, StepsPerRunDoNotChangeTheResult) {
  // A Repeat of several steps per host call is the same computation as one step per call.
  const auto one = parametersAfterTwelveSteps(1), six = parametersAfterTwelveSteps(6);
  ASSERT_EQ(one.size(), six.size());
  for (std::size_t i = 0; i < one.size(); ++i)
    ASSERT_EQ(std::memcmp(one[i].data.data(), six[i].data.data(), one[i].data.size() * 4), 0)
        << one[i].name;
}

TEST(BertModel, AccumulatingTheSameBatchTwiceIsOneStepOnIt) {
  // Without dropout, two micro-batches of the same batch sum to twice its gradient and the
  // optimiser scales by 1/2: exactly one step on the batch, bit for bit.
  BertConfig c = smallConfig();
  c.hiddenDropout = c.attentionDropout = 0.0f;
  auto paramsAfter = [&](unsigned micro) {
    std::ostringstream log;
    SessionOptions o = sessionOptions(c, 4);
    o.optimiser = OptimiserKind::Lamb;
    o.gradientAccumulation = micro;
    o.stepsPerRun = 2;
    PretrainingSession session(o, log);
    session.initialise();
    const HostBatch a = randomBatch(c, 4, 21), b = randomBatch(c, 4, 22);
    std::vector<HostBatch> batches;
    for (const HostBatch *step : {&a, &b})
      for (unsigned i = 0; i < micro; ++i)
        batches.push_back(*step);
    const StepStatistics s = session.train(batches, {0.01, 0.02});
    EXPECT_EQ(s.steps, 2u * micro);
    apps::CheckpointState state;
    session.saveState(state);
    return state.tensors;
  };
  const auto one = paramsAfter(1), two = paramsAfter(2);
  ASSERT_EQ(one.size(), two.size());
  for (std::size_t i = 0; i < one.size(); ++i)
    ASSERT_EQ(std::memcmp(one[i].data.data(), two[i].data.data(), one[i].data.size() * 4), 0)
        << one[i].name;
}

TEST(BertModel, GradientAccumulationWithSgdNamesTheFlag) {
  SessionOptions o = sessionOptions(smallConfig(), 2);
  o.gradientAccumulation = 4;
  std::ostringstream log;
  try {
    PretrainingSession session(o, log);
    FAIL() << "expected cli_error";
  } catch (const apps::cli_error &e) {
    EXPECT_NE(std::string(e.what()).find("--gradient-accumulation 4"), std::string::npos)
        << e.what();
  }
}

/// Held-out-style loss of a small model after four AdamW steps at `precision`.
double lossAfterFourSteps(apps::Precision precision, std::optional<apps::LossScalingOptions> ls) {
  BertConfig c = smallConfig();
  c.hiddenDropout = c.attentionDropout = 0.0f;
  std::ostringstream log;
  SessionOptions o = sessionOptions(c, 4);
  o.optimiser = OptimiserKind::AdamW;
  o.precision = precision;
  o.lossScaling = ls;
  o.stepsPerRun = 4;
  PretrainingSession session(o, log);
  session.initialise();
  const HostBatch a = randomBatch(c, 4, 31), b = randomBatch(c, 4, 32);
  const StepStatistics s = session.train({a, b, a, b}, 0.003);
  EXPECT_EQ(s.skippedSteps, 0.0);
  const StepStatistics e = session.evaluate(a);
  return e.mlmLoss + e.nspLoss;
}

TEST(BertModel, HalfPrecisionTracksFloat) {
  // 16.32: HALF weights, activations and gradients under a static loss scale; 16.16: HALF
  // matmul partials and attention scores too. The loss after a few steps stays within HALF's
  // rounding of the FLOAT run's, and 16.16 is a different computation from 16.32.
  apps::LossScalingOptions scaling;
  scaling.dynamic = false;
  scaling.initialScale = 1024.0f;
  const double single = lossAfterFourSteps(apps::Precision::Float32, std::nullopt);
  const double half = lossAfterFourSteps(apps::Precision::Half16Partials32, scaling);
  const double halfPartials = lossAfterFourSteps(apps::Precision::Half16Partials16, scaling);
  EXPECT_NEAR(half, single, 0.02 * single);
  EXPECT_NEAR(halfPartials, single, 0.02 * single);
  EXPECT_NE(halfPartials, half);
}

TEST(BertModel, DynamicLossScalingSkipsAnOverflowingStepAndHalvesTheScale) {
  BertConfig c = smallConfig();
  std::ostringstream log;
  SessionOptions o = sessionOptions(c, 4);
  o.optimiser = OptimiserKind::Lamb;
  o.precision = apps::Precision::Half16Partials32;
  apps::LossScalingOptions scaling;   // dynamic
  scaling.initialScale = 16777216.0f; // 2^24: the scaled HALF deltas overflow
  o.lossScaling = scaling;
  PretrainingSession session(o, log);
  session.initialise();
  apps::CheckpointState before, after;
  session.saveState(before);
  const StepStatistics s = session.train({randomBatch(c, 4, 33)}, 0.01);
  EXPECT_EQ(s.skippedSteps, 1.0);
  EXPECT_EQ(s.lossScale, 8388608.0);
  session.saveState(after);
  for (std::size_t i = 0; i < before.tensors.size(); ++i)
    EXPECT_EQ(before.tensors[i].data, after.tensors[i].data) << before.tensors[i].name;
}

TEST(BertModel, SameBitsForOneAndTwoHostThreads) {
  const auto one = trainedParameters(1), two = trainedParameters(2);
  ASSERT_EQ(one.size(), two.size());
  for (std::size_t i = 0; i < one.size(); ++i) {
    ASSERT_EQ(one[i].name, two[i].name);
    ASSERT_EQ(std::memcmp(one[i].data.data(), two[i].data.data(), one[i].data.size() * 4), 0)
        << one[i].name;
  }
}

TEST(BertModel, PackedRowGivesTheSameLossesAndUpdateAsTheSequencesUnpacked) {
  BertConfig c = smallConfig();
  c.hiddenDropout = c.attentionDropout = 0.0f; // layout must be the only difference
  std::mt19937 rng(9);
  const Sequence a = makeSequence(rng, 8, 2, 64), b = makeSequence(rng, 7, 1, 64);
  const HostBatch unpacked = layOut(c, {{a}, {b}});
  const HostBatch packed = layOut(c, {{a, b}, {}});
  std::ostringstream log;
  PretrainingSession session(sessionOptions(c, 2), log);
  session.initialise();
  const StepStatistics u = session.evaluate(unpacked), p = session.evaluate(packed);
  EXPECT_EQ(u.mlmCount, 3.0);
  EXPECT_EQ(p.mlmCount, 3.0);
  EXPECT_EQ(p.nspCount, 2.0);
  EXPECT_NEAR(p.mlmLoss, u.mlmLoss, 1e-5);
  EXPECT_NEAR(p.nspLoss, u.nspLoss, 1e-5);

  // One step from the same start on each: the same parameters afterwards.
  apps::CheckpointState afterUnpacked, afterPacked;
  session.train({unpacked}, 0.1);
  session.saveState(afterUnpacked);
  session.initialise();
  session.train({packed}, 0.1);
  session.saveState(afterPacked);
  ASSERT_EQ(afterUnpacked.tensors.size(), afterPacked.tensors.size());
  for (std::size_t t = 0; t < afterPacked.tensors.size(); ++t)
    for (std::size_t i = 0; i < afterPacked.tensors[t].data.size(); ++i)
      ASSERT_NEAR(afterPacked.tensors[t].data[i], afterUnpacked.tensors[t].data[i], 1e-5)
          << afterPacked.tensors[t].name << "[" << i << "]";
}

TEST(BertModel, BadShapesNameTheFlag) {
  BertConfig c = smallConfig();
  c.heads = 3;
  EXPECT_THROW(
      {
        try {
          c.validate();
        } catch (const apps::cli_error &e) {
          EXPECT_NE(std::string(e.what()).find("--heads 3"), std::string::npos) << e.what();
          throw;
        }
      },
      apps::cli_error);
  c = smallConfig();
  c.sequenceLength = 64; // 32 positions
  try {
    c.validate();
    FAIL();
  } catch (const apps::cli_error &e) {
    EXPECT_NE(std::string(e.what()).find("--sequence-length 64"), std::string::npos) << e.what();
  }
  c = smallConfig();
  c.maxPredictions = 17;
  try {
    c.validate();
    FAIL();
  } catch (const apps::cli_error &e) {
    EXPECT_NE(std::string(e.what()).find("--max-predictions 17"), std::string::npos) << e.what();
  }
  try {
    configByName("minni");
    FAIL();
  } catch (const apps::cli_error &e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'mini'"), std::string::npos) << e.what();
  }
}

TEST(BertModel, NamedConfigurationsAndPredictionSlots) {
  const BertConfig mini = configByName("mini"), large = configByName("large");
  EXPECT_EQ(mini.layers, 4u);
  EXPECT_EQ(mini.hidden, 256u);
  EXPECT_EQ(mini.heads, 4u);
  EXPECT_EQ(mini.ffn, 1024u);
  EXPECT_EQ(large.layers, 24u);
  EXPECT_EQ(large.hidden, 1024u);
  EXPECT_EQ(large.heads, 16u);
  EXPECT_EQ(large.ffn, 4096u);
  EXPECT_EQ(defaultMaxPredictions(128), 20u);
  EXPECT_EQ(defaultMaxPredictions(512), 80u);
}

TEST(BertModel, BatchOfTheWrongShapeNamesTheField) {
  const BertConfig c = smallConfig();
  std::ostringstream log;
  PretrainingSession session(sessionOptions(c, 2), log);
  HostBatch b = randomBatch(c, 2, 1);
  b.maskedLabels.pop_back();
  try {
    session.evaluate(b);
    FAIL();
  } catch (const apps::app_error &e) {
    EXPECT_NE(std::string(e.what()).find("maskedLabels"), std::string::npos) << e.what();
  }
}

} // namespace
} // namespace tessera::bert
