// BERT pre-training with replicas: two replicas given the same batches compute the same
// gradients, so their average — and every weight after the step — equals one replica's to the
// bit (every replica draws the same dropout masks), while the statistics count both replicas.
// Batch counts that do not fit the replicas are named.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>

#include <unistd.h>

#include <tessera/apps/Errors.hpp>

#include "BertTestCorpus.hpp"
#include "data/Corpus.hpp"
#include "data/PretrainingLoader.hpp"
#include "data/Vocabulary.hpp"
#include "training/BatchLayout.hpp"
#include "training/PretrainingSession.hpp"

namespace tessera::bert {
namespace {

struct Trained {
  std::vector<apps::NamedTensor> weights;
  StepStatistics last;
};

Trained trainTwoSteps(unsigned replicas, const std::vector<HostBatch> &oneReplicasBatches,
                      const BertConfig &config, std::size_t batch) {
  SessionOptions o;
  o.config = config;
  o.batchSize = batch;
  o.seed = 5;
  o.tilesPerIpu = 16;
  o.bytesPerTile = 32u << 20;
  o.stepsPerRun = 2;
  o.hostThreads = 2;
  o.optimiser = OptimiserKind::AdamW;
  o.replicas = replicas;
  std::ostringstream log;
  PretrainingSession session(o, log);
  session.initialise();
  std::vector<HostBatch> batches; // every replica gets the same batch of each micro-batch
  for (const HostBatch &b : oneReplicasBatches)
    for (unsigned r = 0; r < replicas; ++r)
      batches.push_back(b);
  Trained t;
  t.last = session.train(batches, 1e-3);
  apps::CheckpointState state;
  session.saveState(state);
  t.weights = state.tensors;
  return t;
}

TEST(BertReplicas, TwoReplicasOfTheSameBatchesTrainExactlyLikeOne) {
  // A synthetic corpus and a 200-piece vocabulary: no data files, and quick.
  const Corpus corpus = testing::syntheticCorpus(200);
  const auto dir = std::filesystem::temp_directory_path() /
                   ("tessera-bert-replicas-" + std::to_string(::getpid()));
  const Vocabulary vocabulary = Vocabulary::trainOrLoad(corpus, 200, dir);
  std::filesystem::remove_all(dir);
  BertConfig config = configByName("tiny");
  config.sequenceLength = 32;
  config.maxPredictions = defaultMaxPredictions(config.sequenceLength);
  config.vocabSize = vocabulary.size();
  constexpr std::size_t kBatch = 4;
  BertDataOptions data;
  data.sequenceLength = config.sequenceLength;
  data.maxPredictions = config.maxPredictions;
  data.batchSize = kBatch;
  PretrainingLoader loader(
      std::make_shared<const TokenizedDocuments>(tokenizeDocuments(corpus.training, vocabulary)),
      data);
  const std::vector<HostBatch> batches = {toDeviceLayout(loader.next(), config, kBatch),
                                          toDeviceLayout(loader.next(), config, kBatch)};
  const Trained one = trainTwoSteps(1, batches, config, kBatch);
  const Trained two = trainTwoSteps(2, batches, config, kBatch);
  ASSERT_EQ(one.weights.size(), two.weights.size());
  for (std::size_t i = 0; i < one.weights.size(); ++i)
    EXPECT_EQ(one.weights[i].data, two.weights[i].data) << one.weights[i].name;
  EXPECT_EQ(two.last.meanLoss(), one.last.meanLoss());
  EXPECT_EQ(two.last.mlmCount, 2 * one.last.mlmCount) << "both replicas' predictions count";
  EXPECT_EQ(two.last.mlmAccuracy(), one.last.mlmAccuracy());

  SessionOptions o;
  o.config = config;
  o.batchSize = kBatch;
  o.tilesPerIpu = 16;
  o.bytesPerTile = 32u << 20;
  o.optimiser = OptimiserKind::AdamW;
  o.replicas = 2;
  std::ostringstream log;
  PretrainingSession session(o, log);
  session.initialise();
  try {
    session.train({batches[0]}, 1e-3);
    FAIL() << "expected app_error";
  } catch (const apps::app_error &e) {
    EXPECT_NE(std::string(e.what()).find("× 2 replicas), got 1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(session.evaluate(batches[0]), apps::app_error);
}

} // namespace
} // namespace tessera::bert
