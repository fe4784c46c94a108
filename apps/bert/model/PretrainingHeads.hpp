// BERT's two pre-training heads and their losses.
//  - Masked LM: the final hidden rows at the masked positions (gathered with multiSlice) go
//    through a dense layer, GELU and layer norm, then a product with the token-embedding table
//    (weights tied with the input embeddings) plus the head's own bias, giving logits over the
//    vocabulary. Loss: mean cross-entropy over the real predictions only.
//  - Next sentence: the hidden row of each sequence's [CLS] token is pooled (dense + tanh) and
//    classified into {next, random}. Loss: mean cross-entropy over the real sequences.
// The total loss is their sum. Unused slots carry the label MASKED_LABEL_CODE (popnn/Loss.hpp):
// they add nothing to the losses, the gradients or the counts.
#pragma once

#include "model/BertConfig.hpp"
#include "model/Linear.hpp"
#include "model/TokenLayerNorm.hpp"

namespace tessera::bert {

struct PretrainingLabels {
  poplar::Tensor maskedIndices; ///< UNSIGNED_INT [B·P]: row b·S + position of each prediction
  poplar::Tensor maskedLabels;  ///< UNSIGNED_INT [B·P]: original token, or MASKED_LABEL_CODE
  poplar::Tensor clsIndices;    ///< UNSIGNED_INT [B·K]: row b·S + position of each [CLS]
  poplar::Tensor nspLabels;     ///< UNSIGNED_INT [B·K]: 1 random next, 0 true next, or masked
};

struct PretrainingLosses {
  poplar::Tensor mlmLoss, nspLoss;       ///< FLOAT [1], means over the real slots
  poplar::Tensor mlmCorrect, nspCorrect; ///< UNSIGNED_INT [1]
  poplar::Tensor mlmCount, nspCount;     ///< FLOAT [1]: real slots in the batch
};

class PretrainingHeads {
public:
  PretrainingHeads(std::string name, const BertConfig &config);

  /// Losses of the final hidden rows [B·S][H]. In Training mode also the logits' gradients,
  /// each scaled by `lossScale` (FLOAT [1]; the loss-scaling factor, 1 without).
  PretrainingLosses forward(apps::BuildContext &ctx, const poplar::Tensor &hidden,
                            const poplar::Tensor &tokenTable, const PretrainingLabels &labels,
                            const poplar::Tensor &lossScale, apps::Mode mode,
                            poplar::program::Sequence &prog);
  /// Writes the token table's gradient from the masked-LM head into `tokenTableGradient` (it
  /// must be added to afterwards by the embedding lookups) and returns dL/d(hidden) [B·S][H].
  poplar::Tensor backward(apps::BuildContext &ctx, const poplar::Tensor &tokenTableGradient,
                          poplar::program::Sequence &prog);

private:
  struct Classification {
    poplar::Tensor loss, correct, count, deltas;
  };
  Classification classify(apps::BuildContext &ctx, const poplar::Tensor &logits,
                          const poplar::Tensor &labels, const poplar::Tensor &lossScale,
                          bool withGradient, poplar::program::Sequence &prog, const char *what);
  poplar::Tensor gather(apps::BuildContext &ctx, const poplar::Tensor &hidden,
                        const poplar::Tensor &indices, poplar::program::Sequence &prog,
                        const char *what);

  std::string name_;
  BertConfig config_;
  Linear transform_;
  TokenLayerNorm transformNorm_;
  apps::Parameter *outputBias_ = nullptr;
  Linear pooler_, nspClassifier_;
  // Saved by the Training forward.
  std::size_t tokens_ = 0;
  poplar::Tensor tokenTable_, maskedOffsets_, clsOffsets_, transformInput_, transformed_, pooled_,
      mlmDeltas_, nspDeltas_;
};

} // namespace tessera::bert
