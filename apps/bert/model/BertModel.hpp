// BERT for pre-training as graph programs: embeddings, the encoder layers and the two heads,
// with the device tensors a batch is streamed into. trainingPass() appends forward, losses and
// backward (every parameter's gradient filled); the trainer adds the optimiser step after it.
//
// A batch enters through host-to-device FIFOs, one per input (names in kInputStreams), laid out
// as HostBatch holds them. Dropout masks come from dropoutSeed(), a checkpointed [2] counter the
// training step advances, so a run resumed from a checkpoint draws the same masks.
#pragma once

#include <array>
#include <memory>
#include <vector>

#include "model/BertConfig.hpp"
#include "model/Embeddings.hpp"
#include "model/EncoderLayer.hpp"
#include "model/PretrainingHeads.hpp"

namespace tessera::bert {

/// One batch as the device reads it: flat row-major arrays, row indices already offset by
/// b·S, unused prediction and sequence slots labelled MASKED_LABEL_CODE.
struct HostBatch {
  std::vector<std::uint32_t> tokenIds, positionIds, segmentIds; // [B·S]
  std::vector<std::uint32_t> sequenceIds;                       // [B·S], 0 = padding
  std::vector<std::uint32_t> maskedIndices, maskedLabels;       // [B·P]
  std::vector<std::uint32_t> clsIndices, nspLabels;             // [B·K]
};

/// The FIFO names, in HostBatch's field order.
inline constexpr std::array<const char *, 8> kInputStreams{
    "tokenIds",      "positionIds",  "segmentIds", "sequenceIds",
    "maskedIndices", "maskedLabels", "clsIndices", "nspLabels"};

class BertModel {
public:
  /// Validates `config` (cli_error naming the field) and creates the input tensors and layers;
  /// parameters are created by the first pass built.
  BertModel(apps::BuildContext &ctx, BertConfig config, std::size_t batchSize);
  ~BertModel();

  const BertConfig &config() const { return config_; }
  std::size_t batchSize() const { return batch_; }

  /// Copies one batch from the input FIFOs into the input tensors.
  poplar::program::Sequence readInputs();
  /// Forward, losses and backward; gradients are multiplied by `lossScale` (FLOAT [1]).
  PretrainingLosses trainingPass(const poplar::Tensor &lossScale, poplar::program::Sequence &prog);
  /// Forward and losses without dropout or gradients (evaluation).
  PretrainingLosses evaluationPass(poplar::program::Sequence &prog);
  /// Advances the dropout seed so the next step draws new masks.
  void advanceDropoutSeed(poplar::program::Sequence &prog);

  /// The element counts of each FIFO, in kInputStreams order.
  std::array<std::size_t, 8> streamSizes() const;
  /// Checks `batch` has the graph's shapes; app_error naming the field otherwise.
  void checkBatch(const HostBatch &batch) const;

private:
  poplar::Tensor maskBias(poplar::program::Sequence &prog);

  apps::BuildContext &ctx_;
  BertConfig config_;
  std::size_t batch_;
  poplar::Tensor dropoutSeed_;
  std::array<poplar::Tensor, 8> inputs_;
  std::array<poplar::DataStream, 8> streams_;
  std::unique_ptr<Embeddings> embeddings_;
  std::vector<std::unique_ptr<EncoderLayer>> layers_;
  std::unique_ptr<PretrainingHeads> heads_;
};

} // namespace tessera::bert
