#include "data/PretrainingExamples.hpp"

#include "tessera/apps/Errors.hpp"
#include "tessera/apps/Random.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tessera::bert {
namespace {

using apps::cli_error;
using apps::SplitMix64;

// Seed purposes, so the draws for chunking, ordering and each example are unrelated.
constexpr std::uint64_t kChunkPurpose = 0x4348554e4bULL;
constexpr std::uint64_t kOrderPurpose = 0x4f52444552ULL;
constexpr std::uint64_t kExamplePurpose = 0x4558414d50ULL;

std::string optionValue(double v) {
  std::string s = std::to_string(v);
  while (s.size() > 1 && s.back() == '0' && s[s.size() - 2] != '.')
    s.pop_back();
  return s;
}

// Drops tokens from the longer of the two sides, at its front or back at random, until the pair
// has at most `maxTokens`.
void truncatePair(std::vector<std::uint32_t> &a, std::vector<std::uint32_t> &b,
                  std::size_t maxTokens, SplitMix64 &rng) {
  while (a.size() + b.size() > maxTokens) {
    std::vector<std::uint32_t> &longer = a.size() >= b.size() ? a : b;
    if (rng.next() >> 63)
      longer.erase(longer.begin());
    else
      longer.pop_back();
  }
}

} // namespace

void validateOptions(const BertDataOptions &o) {
  auto fail = [](const std::string &what) { throw cli_error(what); };
  if (o.sequenceLength < 8)
    fail("sequenceLength " + std::to_string(o.sequenceLength) +
         " is below 8; a pair needs [CLS], [SEP], [SEP] and some text (BERT uses 128 or 512)");
  if (o.maxPredictions == 0 || o.maxPredictions >= o.sequenceLength)
    fail("maxPredictions " + std::to_string(o.maxPredictions) + " must be in 1.." +
         std::to_string(o.sequenceLength - 1) + " (below sequenceLength " +
         std::to_string(o.sequenceLength) + "); BERT uses 20 for 128 tokens");
  if (o.batchSize == 0)
    fail("batchSize is 0; it must be at least 1");
  if (o.packing && (o.maxSequencesPerRow < 1 || o.maxSequencesPerRow > 3))
    fail("maxSequencesPerRow " + std::to_string(o.maxSequencesPerRow) +
         " must be in 1..3 when packing");
  if (o.duplicationFactor == 0)
    fail("duplicationFactor is 0; it must be at least 1");
  if (!(o.maskProbability > 0.0 && o.maskProbability < 1.0))
    fail("maskProbability " + optionValue(o.maskProbability) +
         " must be in (0, 1); BERT uses 0.15");
  if (!(o.shortSequenceProbability >= 0.0 && o.shortSequenceProbability <= 1.0))
    fail("shortSequenceProbability " + optionValue(o.shortSequenceProbability) +
         " must be in [0, 1]; BERT uses 0.1");
  if (o.packing && o.packingWindow == 0)
    fail("packingWindow is 0; it must be at least 1");
}

PretrainingBatch makeEmptyBatch(std::size_t b, std::size_t s, std::size_t p, std::size_t k) {
  PretrainingBatch batch{b, s, p, k, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}};
  batch.tokenIds.assign(b * s, kPadId);
  batch.positionIds.assign(b * s, 0);
  batch.segmentIds.assign(b * s, 0);
  batch.sequenceIds.assign(b * s, 0);
  batch.maskedPositions.assign(b * p, 0);
  batch.maskedLabels.assign(b * p, 0);
  batch.maskedWeights.assign(b * p, 0.0f);
  batch.clsPositions.assign(b * k, 0);
  batch.nspLabels.assign(b * k, 0);
  batch.nspWeights.assign(b * k, 0.0f);
  return batch;
}

TokenizedDocuments tokenizeDocuments(const std::vector<Document> &documents,
                                     const Vocabulary &vocabulary) {
  TokenizedDocuments out;
  out.vocabularySize = vocabulary.size();
  for (const Document &d : documents) {
    const std::size_t before = out.numSentences();
    for (const std::string &s : d.sentences) {
      const std::vector<std::uint32_t> ids = vocabulary.encode(s);
      if (ids.empty())
        continue;
      out.tokens.insert(out.tokens.end(), ids.begin(), ids.end());
      out.sentenceStarts.push_back(out.tokens.size());
    }
    if (out.numSentences() > before)
      out.documentStarts.push_back(out.numSentences());
  }
  return out;
}

PretrainingExampleSource::PretrainingExampleSource(
    std::shared_ptr<const TokenizedDocuments> documents, BertDataOptions options)
    : documents_(std::move(documents)), options_(options) {
  validateOptions(options_);
  if (!documents_ || documents_->numDocuments() == 0)
    throw apps::dataset_error("no tokenized document to make pre-training examples from; is the "
                              "corpus split empty?");
  if (documents_->vocabularySize <= kFirstOrdinaryId)
    throw apps::app_error("the tokenized documents' vocabularySize " +
                          std::to_string(documents_->vocabularySize) +
                          " leaves no ordinary token for random replacement");
  const std::size_t maxTokens = options_.sequenceLength - 3;
  const TokenizedDocuments &docs = *documents_;
  for (std::size_t d = 0; d < docs.numDocuments(); ++d) {
    SplitMix64 rng(apps::mixSeed({options_.seed, d, kChunkPurpose}));
    const std::size_t end = docs.documentStarts[d + 1];
    for (std::size_t s = docs.documentStarts[d]; s < end;) {
      std::size_t target = maxTokens;
      if (rng.unitFloat() < options_.shortSequenceProbability)
        target = 2 + static_cast<std::size_t>(rng.below(maxTokens - 1));
      std::size_t tokens = 0, first = s;
      while (s < end && tokens < target)
        tokens += docs.sentence(s++).size();
      chunks_.push_back({static_cast<std::uint32_t>(d), static_cast<std::uint32_t>(first),
                         static_cast<std::uint32_t>(s - first),
                         static_cast<std::uint32_t>(target)});
    }
  }
}

std::shared_ptr<const std::vector<std::uint32_t>>
PretrainingExampleSource::epochOrder(std::uint64_t epoch) const {
  std::lock_guard<std::mutex> lock(orderMutex_);
  if (!cachedOrder_ || cachedEpoch_ != epoch) {
    auto order = std::make_shared<std::vector<std::uint32_t>>(examplesPerEpoch());
    std::iota(order->begin(), order->end(), 0u);
    SplitMix64 rng(apps::mixSeed({options_.seed, epoch, kOrderPurpose}));
    apps::shuffle(*order, rng);
    cachedOrder_ = std::move(order);
    cachedEpoch_ = epoch;
  }
  return cachedOrder_;
}

PretrainingExample PretrainingExampleSource::example(std::uint64_t epoch, std::size_t index) const {
  if (index >= examplesPerEpoch())
    throw apps::app_error("example " + std::to_string(index) + " is past the " +
                          std::to_string(examplesPerEpoch()) + " examples of an epoch");
  const TokenizedDocuments &docs = *documents_;
  const Chunk &chunk = chunks_[(*epochOrder(epoch))[index] % chunks_.size()];
  SplitMix64 rng(apps::mixSeed({options_.seed, epoch, index, kExamplePurpose}));
  const std::size_t maxTokens = options_.sequenceLength - 3;
  auto append = [&](std::vector<std::uint32_t> &to, std::size_t sentence) {
    const auto s = docs.sentence(sentence);
    to.insert(to.end(), s.begin(), s.end());
  };

  PretrainingExample ex;
  ex.isRandomNext = docs.numDocuments() > 1 && (rng.next() >> 63) != 0;
  std::vector<std::uint32_t> a, b;
  if (chunk.numSentences >= 2) {
    const std::size_t aSentences = 1 + static_cast<std::size_t>(rng.below(chunk.numSentences - 1));
    for (std::size_t s = 0; s < aSentences; ++s)
      append(a, chunk.firstSentence + s);
    if (!ex.isRandomNext)
      for (std::size_t s = aSentences; s < chunk.numSentences; ++s)
        append(b, chunk.firstSentence + s);
  } else {
    append(a, chunk.firstSentence);
    if (!ex.isRandomNext) {
      if (a.size() >= 2) {
        const std::size_t cut = 1 + static_cast<std::size_t>(rng.below(a.size() - 1));
        b.assign(a.begin() + static_cast<std::ptrdiff_t>(cut), a.end());
        a.resize(cut);
      } else {
        ex.isRandomNext = docs.numDocuments() > 1;
      }
    }
  }
  if (ex.isRandomNext) {
    const std::size_t target = std::max<std::size_t>(chunk.targetTokens, a.size() + 1);
    std::size_t other = static_cast<std::size_t>(rng.below(docs.numDocuments() - 1));
    if (other >= chunk.document)
      ++other;
    const std::size_t first = docs.documentStarts[other], end = docs.documentStarts[other + 1];
    for (std::size_t s = first + static_cast<std::size_t>(rng.below(end - first));
         s < end && a.size() + b.size() < target; ++s)
      append(b, s);
  }
  truncatePair(a, b, maxTokens, rng);

  ex.tokenIds.reserve(a.size() + b.size() + 3);
  ex.tokenIds.push_back(kClsId);
  ex.tokenIds.insert(ex.tokenIds.end(), a.begin(), a.end());
  ex.tokenIds.push_back(kSepId);
  ex.segmentIds.assign(ex.tokenIds.size(), 0);
  if (!b.empty()) {
    ex.tokenIds.insert(ex.tokenIds.end(), b.begin(), b.end());
    ex.tokenIds.push_back(kSepId);
    ex.segmentIds.resize(ex.tokenIds.size(), 1);
  }

  // Masking: choose among the non-special tokens.
  std::vector<std::uint32_t> candidates;
  for (std::size_t i = 0; i < ex.tokenIds.size(); ++i)
    if (ex.tokenIds[i] >= kFirstOrdinaryId || ex.tokenIds[i] == kUnkId)
      candidates.push_back(static_cast<std::uint32_t>(i));
  const auto wanted = static_cast<std::size_t>(
      std::lround(static_cast<double>(candidates.size()) * options_.maskProbability));
  const std::size_t count =
      std::min({options_.maxPredictions, std::max<std::size_t>(1, wanted), candidates.size()});
  for (std::size_t i = 0; i < count; ++i) // partial Fisher–Yates: the first `count` are chosen
    std::swap(candidates[i], candidates[i + rng.below(candidates.size() - i)]);
  candidates.resize(count);
  std::sort(candidates.begin(), candidates.end());
  const std::uint64_t ordinary = docs.vocabularySize - kFirstOrdinaryId;
  for (std::uint32_t position : candidates) {
    ex.maskedPositions.push_back(position);
    ex.maskedLabels.push_back(ex.tokenIds[position]);
    const float r = rng.unitFloat();
    if (r < 0.8f)
      ex.tokenIds[position] = kMaskId;
    else if (r < 0.9f)
      ex.tokenIds[position] = kFirstOrdinaryId + static_cast<std::uint32_t>(rng.below(ordinary));
  }
  return ex;
}

void placeSequences(PretrainingBatch &batch, std::size_t row,
                    std::span<const PretrainingExample *const> sequences) {
  const std::size_t s = batch.sequenceLength, p = batch.maxPredictions,
                    k = batch.maxSequencesPerRow;
  if (row >= batch.batchSize || sequences.size() > k)
    throw apps::app_error("placeSequences: " + std::to_string(sequences.size()) +
                          " sequences in row " + std::to_string(row) + " of a batch of " +
                          std::to_string(batch.batchSize) + " rows with " + std::to_string(k) +
                          " sequences each");
  std::size_t at = 0, predictions = 0;
  for (std::size_t q = 0; q < sequences.size(); ++q) {
    const PretrainingExample &ex = *sequences[q];
    const std::size_t n = ex.tokenIds.size();
    if (at + n > s || predictions + ex.maskedPositions.size() > p)
      throw apps::app_error("placeSequences: the sequences of row " + std::to_string(row) +
                            " exceed its " + std::to_string(s) + " tokens or " + std::to_string(p) +
                            " predictions");
    for (std::size_t i = 0; i < n; ++i) {
      batch.tokenIds[row * s + at + i] = ex.tokenIds[i];
      batch.positionIds[row * s + at + i] = static_cast<std::uint32_t>(i);
      batch.segmentIds[row * s + at + i] = ex.segmentIds[i];
      batch.sequenceIds[row * s + at + i] = static_cast<std::uint32_t>(q + 1);
    }
    for (std::size_t m = 0; m < ex.maskedPositions.size(); ++m, ++predictions) {
      batch.maskedPositions[row * p + predictions] =
          static_cast<std::uint32_t>(at + ex.maskedPositions[m]);
      batch.maskedLabels[row * p + predictions] = ex.maskedLabels[m];
      batch.maskedWeights[row * p + predictions] = 1.0f;
    }
    batch.clsPositions[row * k + q] = static_cast<std::uint32_t>(at);
    batch.nspLabels[row * k + q] = ex.isRandomNext ? 1u : 0u;
    batch.nspWeights[row * k + q] = 1.0f;
    at += n;
  }
}

} // namespace tessera::bert
