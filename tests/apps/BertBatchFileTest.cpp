// The batch file bert --export-run writes for the PyTorch twin: a round trip keeps every field of
// batches the data code made, and a damaged, missing or misshapen file is an error naming it.
#include "training/BatchFile.hpp"

#include "data/PretrainingLoader.hpp"

#include "BertTestCorpus.hpp"
#include "TempDir.hpp"
#include "tessera/apps/Errors.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <unistd.h>

namespace tessera::bert {
namespace {
using apps::testing::TempDir;

// The synthetic corpus tokenized with a small vocabulary, built once for the whole file.
std::pair<std::shared_ptr<const TokenizedDocuments>, std::shared_ptr<const TokenizedDocuments>>
documents() {
  static const auto both = [] {
    const Corpus corpus = testing::syntheticCorpus(300);
    const auto dir = std::filesystem::temp_directory_path() /
                     ("tessera-bert-batch-file-" + std::to_string(::getpid()));
    const Vocabulary vocab = Vocabulary::trainOrLoad(corpus, 200, dir);
    std::filesystem::remove_all(dir);
    return std::make_pair(
        std::make_shared<const TokenizedDocuments>(tokenizeDocuments(corpus.training, vocab)),
        std::make_shared<const TokenizedDocuments>(tokenizeDocuments(corpus.heldOut, vocab)));
  }();
  return both;
}

// Packed, so rows carry several sequences and some unused NSP slots (weight 0).
BatchFileContents sampleRun() {
  BertDataOptions data;
  data.sequenceLength = 64;
  data.maxPredictions = 10;
  data.batchSize = 4;
  data.seed = 11;
  data.packing = true;
  data.maxSequencesPerRow = 3;
  BatchFileContents run;
  BatchFileHeader &h = run.header;
  h.config = configByName("tiny");
  h.config.vocabSize = 200;
  h.config.sequenceLength = data.sequenceLength;
  h.config.maxPredictions = data.maxPredictions;
  h.config.maxSequencesPerRow = data.maxSequencesPerRow;
  h.config.hiddenDropout = 0.0f;
  h.packing = true;
  h.batchSize = data.batchSize;
  h.seed = data.seed;
  h.corpus = "synthetic";
  PretrainingLoader loader(documents().first, data);
  for (int i = 0; i < 3; ++i)
    run.train.push_back(loader.next());
  const HeldOutBatches heldOut(documents().second, data);
  for (std::size_t i = 0; i < std::min<std::size_t>(2, heldOut.size()); ++i)
    run.heldOut.push_back(heldOut.batch(i));
  return run;
}

void expectSameBatch(const PretrainingBatch &a, const PretrainingBatch &b) {
  EXPECT_EQ(a.batchSize, b.batchSize);
  EXPECT_EQ(a.sequenceLength, b.sequenceLength);
  EXPECT_EQ(a.maxPredictions, b.maxPredictions);
  EXPECT_EQ(a.maxSequencesPerRow, b.maxSequencesPerRow);
  EXPECT_EQ(a.tokenIds, b.tokenIds);
  EXPECT_EQ(a.positionIds, b.positionIds);
  EXPECT_EQ(a.segmentIds, b.segmentIds);
  EXPECT_EQ(a.sequenceIds, b.sequenceIds);
  EXPECT_EQ(a.maskedPositions, b.maskedPositions);
  EXPECT_EQ(a.maskedLabels, b.maskedLabels);
  EXPECT_EQ(a.maskedWeights, b.maskedWeights);
  EXPECT_EQ(a.clsPositions, b.clsPositions);
  EXPECT_EQ(a.nspLabels, b.nspLabels);
  EXPECT_EQ(a.nspWeights, b.nspWeights);
}

// The message of the dataset_error `call` throws; fails the test when it throws none.
std::string errorOf(const std::function<void()> &call) {
  try {
    call();
  } catch (const apps::dataset_error &e) {
    return e.what();
  }
  ADD_FAILURE() << "no dataset_error";
  return {};
}

TEST(BertBatchFile, RoundTripKeepsEveryFieldOfLoaderBatches) {
  TempDir dir;
  const BatchFileContents in = sampleRun();
  ASSERT_EQ(in.train.size(), 3u);
  ASSERT_FALSE(in.heldOut.empty());
  const auto file = dir / "run/batches.pb";
  writeBatchFile(file, in.header, in.train, in.heldOut);
  // Atomic write: only the file itself is left in the directory.
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto &e : std::filesystem::directory_iterator(dir / "run"))
    ++entries;
  EXPECT_EQ(entries, 1u);

  const BatchFileContents out = readBatchFile(file);
  const BertConfig &a = in.header.config, &b = out.header.config;
  EXPECT_EQ(b.name, a.name);
  EXPECT_EQ(b.layers, a.layers);
  EXPECT_EQ(b.hidden, a.hidden);
  EXPECT_EQ(b.heads, a.heads);
  EXPECT_EQ(b.ffn, a.ffn);
  EXPECT_EQ(b.vocabSize, a.vocabSize);
  EXPECT_EQ(b.maxPositions, a.maxPositions);
  EXPECT_EQ(b.sequenceLength, a.sequenceLength);
  EXPECT_EQ(b.maxPredictions, a.maxPredictions);
  EXPECT_EQ(b.maxSequencesPerRow, a.maxSequencesPerRow);
  EXPECT_EQ(b.hiddenDropout, a.hiddenDropout);
  EXPECT_EQ(b.attentionDropout, a.attentionDropout);
  EXPECT_EQ(b.layerNormEpsilon, a.layerNormEpsilon);
  EXPECT_EQ(out.header.packing, in.header.packing);
  EXPECT_EQ(out.header.batchSize, in.header.batchSize);
  EXPECT_EQ(out.header.seed, in.header.seed);
  EXPECT_EQ(out.header.corpus, in.header.corpus);
  ASSERT_EQ(out.train.size(), in.train.size());
  for (std::size_t i = 0; i < in.train.size(); ++i)
    expectSameBatch(out.train[i], in.train[i]);
  ASSERT_EQ(out.heldOut.size(), in.heldOut.size());
  for (std::size_t i = 0; i < in.heldOut.size(); ++i)
    expectSameBatch(out.heldOut[i], in.heldOut[i]);
}

TEST(BertBatchFile, CorruptTruncatedOrMissingFileErrorNamesTheFile) {
  TempDir dir;
  const BatchFileContents in = sampleRun();
  const auto file = dir / "batches.pb";
  writeBatchFile(file, in.header, in.train, in.heldOut);
  std::string bytes;
  {
    std::ifstream f(file, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(f), {});
  }
  auto rewrite = [&](const std::string &content) {
    std::ofstream f(file, std::ios::binary | std::ios::trunc);
    f.write(content.data(), std::streamsize(content.size()));
  };

  std::string flipped = bytes;
  flipped[flipped.size() / 2] ^= 0x5a;
  rewrite(flipped);
  std::string message = errorOf([&] { readBatchFile(file); });
  EXPECT_NE(message.find(file.string()), std::string::npos) << message;
  EXPECT_NE(message.find("corrupt"), std::string::npos) << message;

  rewrite(bytes.substr(0, bytes.size() - 7));
  message = errorOf([&] { readBatchFile(file); });
  EXPECT_NE(message.find(file.string()), std::string::npos) << message;
  EXPECT_NE(message.find("truncated"), std::string::npos) << message;

  rewrite("not a batch file at all");
  message = errorOf([&] { readBatchFile(file); });
  EXPECT_NE(message.find(file.string()), std::string::npos) << message;

  const auto missing = dir / "absent.pb";
  message = errorOf([&] { readBatchFile(missing); });
  EXPECT_NE(message.find(missing.string()), std::string::npos) << message;
}

TEST(BertBatchFile, MisshapenBatchIsRefusedOnWriteNamingTheField) {
  TempDir dir;
  BatchFileContents in = sampleRun();
  in.train[1].maskedWeights.pop_back();
  const auto file = dir / "batches.pb";
  const std::string message =
      errorOf([&] { writeBatchFile(file, in.header, in.train, in.heldOut); });
  EXPECT_NE(message.find(file.string()), std::string::npos) << message;
  EXPECT_NE(message.find("training batch 1"), std::string::npos) << message;
  EXPECT_NE(message.find("maskedWeights"), std::string::npos) << message;
  EXPECT_FALSE(std::filesystem::exists(file));
}

} // namespace
} // namespace tessera::bert
