// Data-parallel training in the classifier trainer: R replicas of micro-batch b train like one
// replica of batch R·b (gradients averaged across replicas, in replica order), up to rounding;
// the result does not depend on host threads. (Bit-identity across process layouts:
// replicas/run_replica_layouts.sh.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <tessera/apps/Errors.hpp>

#include "replicas/ReplicatedTraining.hpp"

namespace tessera::apps {
namespace {

using testing::trainReplicated;

TEST(ReplicatedTrainer, TwoReplicasOfSixteenTrainLikeOneReplicaOfThirtyTwo) {
  // Without batch norm the two are the same computation but for the order of the gradient sums
  // (two sums of 16 averaged, against one mean of 32): differences of a few float ulps, which
  // five SGD steps with momentum keep small.
  const auto two = trainReplicated(2, 16, 5, false, 2);
  const auto one = trainReplicated(1, 32, 5, false, 2);
  ASSERT_EQ(two.parameters.size(), one.parameters.size());
  double worst = 0, scale = 0;
  for (std::size_t p = 0; p < one.parameters.size(); ++p)
    for (std::size_t i = 0; i < one.parameters[p].size(); ++i) {
      worst = std::max(worst, double(std::abs(two.parameters[p][i] - one.parameters[p][i])));
      scale = std::max(scale, double(std::abs(one.parameters[p][i])));
    }
  EXPECT_LE(worst, 1e-5 * scale) << "largest difference " << worst << " (weights up to " << scale
                                 << ")";
  for (std::size_t s = 0; s < one.losses.size(); ++s)
    EXPECT_NEAR(two.losses[s], one.losses[s], 1e-5 * std::abs(one.losses[s])) << "step " << s;
}

TEST(ReplicatedTrainer, BatchNormReplicasGiveTheSameBitsForAnyHostThreadCount) {
  const auto a = trainReplicated(2, 8, 3, true, 1);
  const auto b = trainReplicated(2, 8, 3, true, 3);
  EXPECT_EQ(a.parameters, b.parameters);
  EXPECT_EQ(testing::fingerprint(a), testing::fingerprint(b));
}

TEST(ReplicatedTrainer, ABatchOfTheWrongSizeIsNamed) {
  ClassifierSpec spec;
  spec.modelName = "mlp";
  spec.tiles = 16;
  spec.replicas = 2;
  TrainingOptions o;
  o.batchSize = 8;
  std::ostringstream log;
  ClassifierTrainer trainer(testing::replicatedMlp(false), spec, o, log);
  EXPECT_EQ(trainer.batchSize(), 16u) << "2 replicas of 8";
  trainer.initialise();
  try {
    trainer.trainStep(testing::syntheticBatch(8, 0), 0.1);
    FAIL() << "expected app_error";
  } catch (const app_error &e) {
    EXPECT_NE(std::string(e.what()).find("does not match the step's batch 16"), std::string::npos)
        << e.what();
  }
}

} // namespace
} // namespace tessera::apps
