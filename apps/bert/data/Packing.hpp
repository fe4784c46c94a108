// Packed BERT (after Graphcore's "packing" of pre-training data): most FOLDOC pairs are much
// shorter than a row, so up to K (≤ 3) examples share one row of S tokens. Each keeps its own
// positions (restarting at 0), its own sequence id (attention stays within it), its own [CLS]
// and NSP label; the row's masked positions are the sequences' concatenated. Fewer padding
// tokens per row means more real tokens per second for the same graph.
#pragma once

#include "data/PretrainingExamples.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tessera::bert {

struct PackingLimits {
  std::size_t rowTokens;      // S
  std::size_t maxSequences;   // K
  std::size_t maxPredictions; // P
};

/// Groups items (example lengths in tokens and their masked-token counts) into rows: within each
/// consecutive window of `window` items, first-fit decreasing (longest first, ties by index; an
/// item goes to the first row with room for its tokens, its predictions and one more sequence).
/// Returns each row's item indices in placement order. Deterministic. Throws apps::app_error if
/// one item alone exceeds the limits.
std::vector<std::vector<std::uint32_t>> packRows(std::span<const std::uint32_t> lengths,
                                                 std::span<const std::uint32_t> predictions,
                                                 const PackingLimits &limits, std::size_t window);

/// Non-padding tokens / all tokens of `batch` (rows made only of padding count too).
double realTokenFraction(const PretrainingBatch &batch);

/// Real-token fractions of the data with packing off and on; the ratio is the expected gain in
/// real tokens per second at equal rows per second.
struct PackingGain {
  double unpackedFraction = 0.0;
  double packedFraction = 0.0;
  double gain() const { return unpackedFraction > 0.0 ? packedFraction / unpackedFraction : 0.0; }
};

/// Measures PackingGain over the first `numBatches` batches of epoch 0 (fewer if the epoch is
/// shorter), with `options` as given except `packing`.
PackingGain measurePackingGain(std::shared_ptr<const TokenizedDocuments> documents,
                               const BertDataOptions &options, std::size_t numBatches = 50);

} // namespace tessera::bert
