// Pre-training examples, masking statistics, packing invariants and the loader's determinism.
#include "data/Packing.hpp"
#include "data/PretrainingLoader.hpp"

#include "BertTestCorpus.hpp"
#include "tessera/apps/Errors.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <unistd.h>

namespace tessera::bert {
namespace {

// The synthetic corpus tokenized with a small vocabulary, built once for the whole file.
std::shared_ptr<const TokenizedDocuments> trainingDocuments(bool heldOut = false) {
  static const auto both = [] {
    const Corpus corpus = testing::syntheticCorpus(600);
    const auto dir = std::filesystem::temp_directory_path() /
                     ("tessera-bert-pretraining-" + std::to_string(::getpid()));
    const Vocabulary vocab = Vocabulary::trainOrLoad(corpus, 200, dir);
    std::filesystem::remove_all(dir);
    return std::make_pair(
        std::make_shared<const TokenizedDocuments>(tokenizeDocuments(corpus.training, vocab)),
        std::make_shared<const TokenizedDocuments>(tokenizeDocuments(corpus.heldOut, vocab)));
  }();
  return heldOut ? both.second : both.first;
}

BertDataOptions smallOptions() {
  BertDataOptions o;
  o.sequenceLength = 64;
  o.maxPredictions = 12;
  o.batchSize = 8;
  o.seed = 7;
  return o;
}

bool equalBatches(const PretrainingBatch &a, const PretrainingBatch &b) {
  return a.tokenIds == b.tokenIds && a.positionIds == b.positionIds &&
         a.segmentIds == b.segmentIds && a.sequenceIds == b.sequenceIds &&
         a.maskedPositions == b.maskedPositions && a.maskedLabels == b.maskedLabels &&
         a.maskedWeights == b.maskedWeights && a.clsPositions == b.clsPositions &&
         a.nspLabels == b.nspLabels && a.nspWeights == b.nspWeights;
}

TEST(BertPretraining, ExamplesHaveBertsShape) {
  const PretrainingExampleSource source(trainingDocuments(), smallOptions());
  ASSERT_GT(source.examplesPerEpoch(), 200u);
  for (std::size_t i = 0; i < 200; ++i) {
    const PretrainingExample ex = source.example(0, i);
    ASSERT_LE(ex.tokenIds.size(), 64u);
    EXPECT_EQ(ex.tokenIds.front(), kClsId);
    EXPECT_EQ(ex.tokenIds.back(), kSepId);
    EXPECT_EQ(std::count(ex.tokenIds.begin(), ex.tokenIds.end(), kSepId), 2);
    EXPECT_EQ(ex.segmentIds.front(), 0u);
    EXPECT_EQ(ex.segmentIds.back(), 1u);
    EXPECT_TRUE(std::is_sorted(ex.segmentIds.begin(), ex.segmentIds.end()));
    EXPECT_GE(ex.maskedPositions.size(), 1u);
    EXPECT_LE(ex.maskedPositions.size(), 12u);
    for (std::size_t m = 0; m < ex.maskedPositions.size(); ++m) {
      EXPECT_GE(ex.maskedLabels[m], kFirstOrdinaryId - 4); // never [PAD]
      EXPECT_NE(ex.maskedLabels[m], kClsId);
      EXPECT_NE(ex.maskedLabels[m], kSepId);
    }
  }
}

TEST(BertPretraining, MaskingAndNextSentenceStatistics) {
  BertDataOptions o = smallOptions();
  o.maxPredictions = 40; // never the binding limit here
  const PretrainingExampleSource source(trainingDocuments(), o);
  std::size_t candidates = 0, chosen = 0, masked = 0, replaced = 0, kept = 0, randomNext = 0;
  std::size_t examples = 0;
  for (std::uint64_t epoch = 0; epoch < 3; ++epoch)
    for (std::size_t i = 0; i < source.examplesPerEpoch(); ++i, ++examples) {
      const PretrainingExample ex = source.example(epoch, i);
      candidates += ex.tokenIds.size() - (ex.segmentIds.back() == 1 ? 3 : 2);
      chosen += ex.maskedPositions.size();
      randomNext += ex.isRandomNext;
      for (std::size_t m = 0; m < ex.maskedPositions.size(); ++m) {
        const std::uint32_t now = ex.tokenIds[ex.maskedPositions[m]];
        if (now == kMaskId)
          ++masked;
        else if (now == ex.maskedLabels[m])
          ++kept; // (a random token equal to the original also counts here, rarely)
        else
          ++replaced;
      }
    }
  const double chosenShare = static_cast<double>(chosen) / static_cast<double>(candidates);
  EXPECT_NEAR(chosenShare, 0.15, 0.02);
  EXPECT_NEAR(static_cast<double>(masked) / static_cast<double>(chosen), 0.8, 0.03);
  EXPECT_NEAR(static_cast<double>(replaced) / static_cast<double>(chosen), 0.1, 0.03);
  EXPECT_NEAR(static_cast<double>(kept) / static_cast<double>(chosen), 0.1, 0.03);
  EXPECT_NEAR(static_cast<double>(randomNext) / static_cast<double>(examples), 0.5, 0.04);
}

TEST(BertPretraining, BatchesAreAPureFunctionOfSeedEpochAndIndex) {
  BertDataOptions o = smallOptions();
  PretrainingLoader a(trainingDocuments(), o);
  PretrainingLoader b(trainingDocuments(), o);
  ASSERT_GE(a.batchesPerEpoch(0), 4u);
  std::vector<PretrainingBatch> seen;
  for (int i = 0; i < 4; ++i) {
    const LoaderPosition where = a.position();
    seen.push_back(a.next());
    EXPECT_TRUE(equalBatches(seen.back(), b.next()));
    EXPECT_TRUE(equalBatches(seen.back(), a.makeBatch(where)));
  }
  EXPECT_FALSE(equalBatches(seen[0], seen[1]));
  // The next epoch brings other pairs and masks.
  EXPECT_FALSE(equalBatches(a.makeBatch({0, 0}), a.makeBatch({1, 0})));

  a.seek({0, 2});
  EXPECT_TRUE(equalBatches(a.next(), seen[2]));
  EXPECT_EQ(a.position(), (LoaderPosition{0, 3}));
  // Rolling over the epoch end.
  const std::size_t last = a.batchesPerEpoch(0) - 1;
  a.seek({0, last});
  (void)a.next();
  EXPECT_EQ(a.position(), (LoaderPosition{1, 0}));
  EXPECT_THROW(a.seek({0, last + 1}), apps::app_error);

  o.seed = 8;
  const PretrainingLoader other(trainingDocuments(), o);
  EXPECT_FALSE(equalBatches(other.makeBatch({0, 0}), seen[0]));

  o.seed = 7;
  o.prefetchBatches = 0;
  PretrainingLoader direct(trainingDocuments(), o);
  EXPECT_TRUE(equalBatches(direct.next(), seen[0]));
}

void expectRowInvariants(const PretrainingBatch &batch) {
  const std::size_t s = batch.sequenceLength, p = batch.maxPredictions,
                    k = batch.maxSequencesPerRow;
  for (std::size_t r = 0; r < batch.batchSize; ++r) {
    std::uint32_t previousSequence = 0;
    for (std::size_t i = 0; i < s; ++i) {
      const std::uint32_t seq = batch.sequenceIds[r * s + i];
      if (seq == 0) {
        EXPECT_EQ(batch.tokenIds[r * s + i], kPadId);
      } else if (seq != previousSequence) {
        EXPECT_EQ(seq, previousSequence + 1) << "sequence ids count up from 1";
        EXPECT_EQ(batch.positionIds[r * s + i], 0u) << "positions restart";
        EXPECT_EQ(batch.clsPositions[r * k + seq - 1], i);
        EXPECT_EQ(batch.tokenIds[r * s + i], kClsId);
        EXPECT_EQ(batch.nspWeights[r * k + seq - 1], 1.0f);
      } else {
        EXPECT_EQ(batch.positionIds[r * s + i], batch.positionIds[r * s + i - 1] + 1);
      }
      if (seq == 0 && previousSequence != 0) { // padding only at the end
        for (std::size_t j = i; j < s; ++j)
          ASSERT_EQ(batch.sequenceIds[r * s + j], 0u);
      }
      previousSequence = seq == 0 ? previousSequence : seq;
    }
    for (std::size_t q = previousSequence; q < k; ++q)
      EXPECT_EQ(batch.nspWeights[r * k + q], 0.0f);
    for (std::size_t m = 0; m < p; ++m) {
      if (batch.maskedWeights[r * p + m] == 0.0f)
        continue;
      const std::uint32_t at = batch.maskedPositions[r * p + m];
      ASSERT_LT(at, s);
      EXPECT_NE(batch.sequenceIds[r * s + at], 0u) << "masked position inside a sequence";
      EXPECT_NE(batch.tokenIds[r * s + at], kClsId);
      EXPECT_NE(batch.tokenIds[r * s + at], kSepId);
    }
  }
}

TEST(BertPretraining, PackedBatchesKeepSequencesApart) {
  BertDataOptions o = smallOptions();
  o.packing = true;
  o.maxSequencesPerRow = 3;
  const PretrainingLoader loader(trainingDocuments(), o);
  std::size_t rowsWithSeveral = 0;
  for (std::size_t b = 0; b < std::min<std::size_t>(loader.batchesPerEpoch(0), 10); ++b) {
    const PretrainingBatch batch = loader.makeBatch({0, b});
    EXPECT_EQ(batch.maxSequencesPerRow, 3u);
    expectRowInvariants(batch);
    for (std::size_t r = 0; r < batch.batchSize; ++r)
      rowsWithSeveral += batch.nspWeights[r * 3 + 1] == 1.0f;
  }
  EXPECT_GT(rowsWithSeveral, 10u);
  o.packing = false;
  const PretrainingLoader unpacked(trainingDocuments(), o);
  expectRowInvariants(unpacked.makeBatch({0, 0}));
  EXPECT_LT(loader.batchesPerEpoch(0), unpacked.batchesPerEpoch(0));

  const PackingGain gain = measurePackingGain(trainingDocuments(), smallOptions(), 20);
  EXPECT_GT(gain.packedFraction, gain.unpackedFraction + 0.1);
  EXPECT_LE(gain.packedFraction, 1.0);
  EXPECT_GT(gain.gain(), 1.2);
}

TEST(BertPretraining, FirstFitDecreasingRespectsLimits) {
  const std::vector<std::uint32_t> lengths{60, 10, 30, 40, 20, 64, 5};
  const std::vector<std::uint32_t> predictions{9, 2, 5, 6, 3, 10, 1};
  const auto rows = packRows(lengths, predictions, {64, 3, 12}, 100);
  std::vector<int> seen(lengths.size(), 0);
  for (const auto &row : rows) {
    std::uint32_t tokens = 0, preds = 0;
    EXPECT_LE(row.size(), 3u);
    for (std::uint32_t i : row) {
      tokens += lengths[i];
      preds += predictions[i];
      ++seen[i];
    }
    EXPECT_LE(tokens, 64u);
    EXPECT_LE(preds, 12u);
  }
  EXPECT_EQ(seen, std::vector<int>(lengths.size(), 1));
  EXPECT_EQ(rows.size(), 4u); // {64} {60} {40,20} {30,10,5}
  EXPECT_EQ(packRows(lengths, predictions, {64, 3, 12}, 100), rows);
  EXPECT_THROW(packRows(lengths, predictions, {50, 3, 12}, 100), apps::app_error);
}

TEST(BertPretraining, HeldOutBatchesAreFixedAndPadded) {
  const HeldOutBatches heldOut(trainingDocuments(true), smallOptions());
  ASSERT_GE(heldOut.size(), 2u);
  EXPECT_TRUE(equalBatches(heldOut.batch(0), heldOut.batch(0)));
  const PretrainingBatch last = heldOut.batch(heldOut.size() - 1);
  expectRowInvariants(last);
  EXPECT_THROW(heldOut.batch(heldOut.size()), apps::app_error);
}

std::string optionError(const std::function<void(BertDataOptions &)> &change) {
  BertDataOptions o;
  change(o);
  try {
    validateOptions(o);
  } catch (const apps::cli_error &e) {
    return e.what();
  }
  return "no cli_error";
}

TEST(BertPretraining, OptionErrorsNameTheOption) {
  EXPECT_NO_THROW(validateOptions(BertDataOptions{}));
  EXPECT_NE(optionError([](auto &o) { o.maxPredictions = 128; }).find("maxPredictions 128"),
            std::string::npos);
  EXPECT_NE(optionError([](auto &o) { o.sequenceLength = 4; }).find("sequenceLength 4"),
            std::string::npos);
  EXPECT_NE(optionError([](auto &o) { o.batchSize = 0; }).find("batchSize"), std::string::npos);
  EXPECT_NE(optionError([](auto &o) {
              o.packing = true;
              o.maxSequencesPerRow = 4;
            }).find("maxSequencesPerRow 4"),
            std::string::npos);
  EXPECT_NE(optionError([](auto &o) { o.maskProbability = 1.5; }).find("maskProbability 1.5"),
            std::string::npos);
  EXPECT_NE(optionError([](auto &o) { o.duplicationFactor = 0; }).find("duplicationFactor"),
            std::string::npos);
  BertDataOptions tooBig = smallOptions();
  tooBig.batchSize = 100000;
  EXPECT_THROW(PretrainingLoader(trainingDocuments(), tooBig), apps::dataset_error);
}

} // namespace
} // namespace tessera::bert

namespace tessera::bert {
namespace {

// Run by hand (--gtest_also_run_disabled_tests): the packing gain on the real corpus.
TEST(BertPretraining, DISABLED_PackingGainOnFoldoc) {
  if (!std::filesystem::exists(kFoldocDictPath))
    GTEST_SKIP() << kFoldocDictPath << " missing (install dict-foldoc)";
  const Corpus corpus = loadFoldocCorpus();
  const Vocabulary vocab = Vocabulary::trainOrLoad(corpus, kDefaultVocabularySize);
  const auto docs =
      std::make_shared<const TokenizedDocuments>(tokenizeDocuments(corpus.training, vocab));
  const PackingGain gain = measurePackingGain(docs, BertDataOptions{}, 100);
  const PretrainingExampleSource source(docs, BertDataOptions{});
  std::printf("%zu documents, %zu tokens, %zu examples per epoch; real tokens unpacked %.3f, "
              "packed %.3f, gain %.2fx\n",
              docs->numDocuments(), docs->tokens.size(), source.examplesPerEpoch(),
              gain.unpackedFraction, gain.packedFraction, gain.gain());
}

} // namespace
} // namespace tessera::bert
