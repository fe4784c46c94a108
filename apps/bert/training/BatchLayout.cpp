#include "training/BatchLayout.hpp"

#include <popnn/Loss.hpp>

#include <tessera/apps/Errors.hpp>

namespace tessera::bert {

HostBatch toDeviceLayout(const PretrainingBatch &batch, const BertConfig &config,
                         std::size_t batchSize) {
  const std::size_t B = batchSize, S = config.sequenceLength, P = config.maxPredictions,
                    K = config.maxSequencesPerRow;
  if (batch.batchSize != B || batch.sequenceLength != S || batch.maxPredictions != P ||
      batch.maxSequencesPerRow != K)
    throw apps::app_error(
        "batch of " + std::to_string(batch.batchSize) + " rows × " +
        std::to_string(batch.sequenceLength) + " tokens, " + std::to_string(batch.maxPredictions) +
        " predictions and " + std::to_string(batch.maxSequencesPerRow) +
        " sequences per row does not match the model's " + std::to_string(B) + " × " +
        std::to_string(S) + ", " + std::to_string(P) + " and " + std::to_string(K));
  HostBatch out;
  out.tokenIds = batch.tokenIds;
  out.positionIds = batch.positionIds;
  out.segmentIds = batch.segmentIds;
  out.sequenceIds = batch.sequenceIds;
  out.maskedIndices.resize(B * P);
  out.maskedLabels.resize(B * P);
  out.clsIndices.resize(B * K);
  out.nspLabels.resize(B * K);
  for (std::size_t b = 0; b < B; ++b) {
    const auto rowStart = std::uint32_t(b * S);
    for (std::size_t p = 0; p < P; ++p) {
      const std::size_t i = b * P + p;
      out.maskedIndices[i] = rowStart + batch.maskedPositions[i];
      out.maskedLabels[i] = batch.maskedWeights[i] > 0 ? batch.maskedLabels[i] : MASKED_LABEL_CODE;
    }
    for (std::size_t k = 0; k < K; ++k) {
      const std::size_t i = b * K + k;
      out.clsIndices[i] = rowStart + batch.clsPositions[i];
      out.nspLabels[i] = batch.nspWeights[i] > 0 ? batch.nspLabels[i] : MASKED_LABEL_CODE;
    }
  }
  return out;
}

} // namespace tessera::bert
