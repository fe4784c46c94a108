// The shape of a BERT encoder and its pre-training heads: the named configurations (tiny, mini,
// base, large), overrides, and the checks that reject a shape the graph could not build.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tessera::bert {

struct BertConfig {
  std::string name = "tiny";
  std::size_t layers = 2;
  std::size_t hidden = 128;
  std::size_t heads = 2;
  std::size_t ffn = 512; ///< inner width of each feed-forward block
  std::size_t vocabSize = 8192;
  std::size_t maxPositions = 512; ///< rows of the position-embedding table
  std::size_t sequenceLength = 128;
  std::size_t maxPredictions = 20;    ///< masked-LM slots per row
  std::size_t maxSequencesPerRow = 1; ///< 1 unpacked; up to 3 with packing
  float hiddenDropout = 0.1f;         ///< after embeddings, attention output and feed-forward
  float attentionDropout = 0.1f;      ///< on the attention probabilities
  float layerNormEpsilon = 1e-12f;    ///< as BERT's reference implementation
  float initStdDev = 0.02f;           ///< truncated normal (±2σ) for every weight matrix

  std::size_t headSize() const { return hidden / heads; }
  /// Throws tessera::apps::cli_error naming the first field that makes the model unbuildable:
  /// heads not dividing hidden, a sequence longer than the position table, more predictions
  /// than positions, any zero size.
  void validate() const;
};

/// The names configByName accepts, in size order.
const std::vector<std::string> &configNames();

/// tiny (2 layers, hidden 128, 2 heads, FFN 512), mini (4/256/4/1024), base (12/768/12/3072) or
/// large (24/1024/16/4096). Throws cli_error for any other name, suggesting the nearest.
BertConfig configByName(const std::string &name);

/// BERT's default number of masked-LM slots for a sequence length: 20 at 128, scaled with the
/// length (≈ 15 % of tokens, rounded as the published phase-2 settings: 56 at 384, 76 at 512).
std::size_t defaultMaxPredictions(std::size_t sequenceLength);

} // namespace tessera::bert
