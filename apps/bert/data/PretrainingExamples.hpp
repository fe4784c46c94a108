// BERT's pre-training examples: sentence pairs "[CLS] A [SEP] B [SEP]" for next-sentence
// prediction, with 15 % of their tokens masked for the masked-language-model loss, and the batch
// layout the model reads.
//
// The recipe. Each epoch makes `duplicationFactor` passes over the training documents. The
// documents are cut into chunks of consecutive sentences once per seed: a chunk grows until it
// holds the target number of tokens (sequenceLength − 3; with probability 0.1 a shorter target,
// uniform in [2, sequenceLength − 3], so the model also sees short inputs) or the document ends.
// Example i of epoch e takes chunk order_e[i] (order_e: a shuffle seeded by seed and e) and draws,
// from a generator seeded by (seed, e, i):
//  * B is the chunk's continuation with probability ½, else random (isRandomNext): sentences
//    from a random other document, starting at a random sentence, until the pair reaches the
//    target. A is the chunk's first 1..n−1 sentences (a one-sentence chunk is cut at a random
//    token for a true continuation). Unlike BERT's reference code, the unused rest of a chunk is
//    not "put back" for the next example: that would chain examples together, and here every
//    example is a pure function of (seed, epoch, index), so resumed runs and any thread count see
//    the same bits.
//  * The pair is truncated to sequenceLength − 3 tokens, a token at a time from the longer side,
//    from its front or back at random.
//  * max(1, round(15 % of the non-special tokens)), at most maxPredictions, are chosen; each
//    becomes [MASK] with probability 0.8, a random ordinary token 0.1, or stays 0.1.
#pragma once

#include "data/Corpus.hpp"
#include "data/Vocabulary.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

namespace tessera::bert {

struct BertDataOptions {
  std::size_t sequenceLength = 128; // S: tokens per row
  std::size_t maxPredictions = 20;  // P: masked-token slots per row
  std::size_t batchSize = 32;       // B: rows per batch
  std::uint64_t seed = 0;
  /// Pack up to maxSequencesPerRow examples into each row (Packing.hpp).
  bool packing = false;
  std::size_t maxSequencesPerRow = 3; // K when packing; 1 when not
  /// Passes over the documents per epoch, each with its own pairs and masks (BERT's dupe factor).
  std::size_t duplicationFactor = 1;
  double maskProbability = 0.15;
  double shortSequenceProbability = 0.1;
  /// Examples considered together when packing rows (first-fit decreasing within each window).
  std::size_t packingWindow = 1024;
  /// Batches the loader builds ahead on its thread; 0 builds them in next().
  std::size_t prefetchBatches = 2;

  /// K as laid out in a batch: maxSequencesPerRow when packing, else 1.
  std::size_t sequencesPerRow() const { return packing ? maxSequencesPerRow : 1; }
};

/// Throws apps::cli_error naming the first invalid option (sequenceLength below 8, maxPredictions
/// 0 or not below sequenceLength, batchSize 0, maxSequencesPerRow outside 1..3 when packing,
/// probabilities outside their ranges, duplicationFactor or packingWindow 0).
void validateOptions(const BertDataOptions &options);

/// The batch layout the model reads. B rows of S tokens; a row holds K packed sequences (K = 1
/// unpacked). All arrays are row-major.
// The layout the model reads, kept exactly as specified:
// clang-format off
struct PretrainingBatch {
  std::size_t batchSize, sequenceLength, maxPredictions, maxSequencesPerRow; // K: 1 unpacked, ≤3 packed
  std::vector<std::uint32_t> tokenIds;        // [B][S], [PAD]=0 after the end
  std::vector<std::uint32_t> positionIds;     // [B][S], 0.. restarting for each packed sequence
  std::vector<std::uint32_t> segmentIds;      // [B][S], 0 = sentence A (incl. [CLS] and first [SEP]), 1 = B
  std::vector<std::uint32_t> sequenceIds;     // [B][S], 1..K = which packed sequence, 0 = padding; tokens attend only within equal non-zero ids
  std::vector<std::uint32_t> maskedPositions; // [B][P] positions within the row, 0 for unused slots
  std::vector<std::uint32_t> maskedLabels;    // [B][P] original token ids
  std::vector<float> maskedWeights;           // [B][P] 1 real prediction, 0 unused slot
  std::vector<std::uint32_t> clsPositions;    // [B][K] row position of each packed sequence's [CLS]
  std::vector<std::uint32_t> nspLabels;       // [B][K] 1 = B is a random segment, 0 = true next
  std::vector<float> nspWeights;              // [B][K] 1 real sequence, 0 unused slot
};
// clang-format on

/// A batch of all-padding rows (every id and weight 0) with the given shape.
PretrainingBatch makeEmptyBatch(std::size_t batchSize, std::size_t sequenceLength,
                                std::size_t maxPredictions, std::size_t maxSequencesPerRow);

/// Documents as token ids: the sentences of document d are documentStarts[d] ..
/// documentStarts[d+1]−1, sentence s's tokens are tokens[sentenceStarts[s] .. sentenceStarts[s+1]).
struct TokenizedDocuments {
  std::vector<std::uint32_t> tokens;
  std::vector<std::size_t> sentenceStarts{0};
  std::vector<std::size_t> documentStarts{0};
  std::size_t vocabularySize = 0; // random replacement tokens are drawn below this

  std::size_t numDocuments() const { return documentStarts.size() - 1; }
  std::size_t numSentences() const { return sentenceStarts.size() - 1; }
  std::span<const std::uint32_t> sentence(std::size_t s) const {
    return {tokens.data() + sentenceStarts[s], sentenceStarts[s + 1] - sentenceStarts[s]};
  }
};

/// Encodes every sentence (empty encodings dropped, documents left empty dropped).
TokenizedDocuments tokenizeDocuments(const std::vector<Document> &documents,
                                     const Vocabulary &vocabulary);

/// One sequence before layout.
struct PretrainingExample {
  std::vector<std::uint32_t> tokenIds;        // [CLS] A [SEP] B [SEP], unmasked ids replaced
  std::vector<std::uint32_t> segmentIds;      // 0 for [CLS] A [SEP], 1 for B [SEP]
  std::vector<std::uint32_t> maskedPositions; // ascending, within the sequence
  std::vector<std::uint32_t> maskedLabels;    // original ids at those positions
  bool isRandomNext = false;
};

/// Makes the examples of each epoch (see the recipe above).
class PretrainingExampleSource {
public:
  /// Throws apps::cli_error for invalid options, apps::dataset_error when there is no document.
  PretrainingExampleSource(std::shared_ptr<const TokenizedDocuments> documents,
                           BertDataOptions options);

  /// Examples in every epoch: duplicationFactor × the number of chunks.
  std::size_t examplesPerEpoch() const { return chunks_.size() * options_.duplicationFactor; }
  /// Example `index` (< examplesPerEpoch()) of `epoch`. Thread-safe.
  PretrainingExample example(std::uint64_t epoch, std::size_t index) const;

  const BertDataOptions &options() const { return options_; }
  const TokenizedDocuments &documents() const { return *documents_; }

private:
  struct Chunk {
    std::uint32_t document, firstSentence, numSentences, targetTokens;
  };
  std::shared_ptr<const std::vector<std::uint32_t>> epochOrder(std::uint64_t epoch) const;

  std::shared_ptr<const TokenizedDocuments> documents_;
  BertDataOptions options_;
  std::vector<Chunk> chunks_;
  mutable std::mutex orderMutex_;
  mutable std::uint64_t cachedEpoch_ = ~std::uint64_t{0};
  mutable std::shared_ptr<const std::vector<std::uint32_t>> cachedOrder_;
};

/// Lays `sequences` (at most K, their lengths summing to at most S, their predictions to at most
/// P) out in row `row` of `batch`, which must be all padding. Throws apps::app_error if they do not
/// fit.
void placeSequences(PretrainingBatch &batch, std::size_t row,
                    std::span<const PretrainingExample *const> sequences);

} // namespace tessera::bert
