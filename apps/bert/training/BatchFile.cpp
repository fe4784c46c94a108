#include "training/BatchFile.hpp"

#include <limits>

#include <tessera/apps/Errors.hpp>
#include <tessera/apps/FileEnvelope.hpp>

#include "pretraining_batches.pb.h"

namespace tessera::bert {
namespace {
using apps::dataset_error;

constexpr apps::EnvelopeFormat kBatchFileFormat("TSRBTCH\n", 1, "BERT batch file");

std::string batchName(const char *list, std::size_t index) {
  return std::string(list) + " batch " + std::to_string(index);
}

// Every array has the length its shape gives, and the shape is the header's.
void checkBatch(const PretrainingBatch &b, const BatchFileHeader &h,
                const std::filesystem::path &file, const std::string &name, const char *problem) {
  const BertConfig &c = h.config;
  if (b.batchSize != h.batchSize || b.sequenceLength != c.sequenceLength ||
      b.maxPredictions != c.maxPredictions || b.maxSequencesPerRow != c.maxSequencesPerRow)
    throw dataset_error(
        file.string() + problem + name + " is " + std::to_string(b.batchSize) + " rows × " +
        std::to_string(b.sequenceLength) + " tokens, " + std::to_string(b.maxPredictions) +
        " predictions and " + std::to_string(b.maxSequencesPerRow) +
        " sequences per row; the header says " + std::to_string(h.batchSize) + " × " +
        std::to_string(c.sequenceLength) + ", " + std::to_string(c.maxPredictions) + " and " +
        std::to_string(c.maxSequencesPerRow));
  const std::size_t tokens = b.batchSize * b.sequenceLength;
  const std::size_t predictions = b.batchSize * b.maxPredictions;
  const std::size_t sequences = b.batchSize * b.maxSequencesPerRow;
  const std::pair<const char *, std::pair<std::size_t, std::size_t>> lengths[] = {
      {"tokenIds", {b.tokenIds.size(), tokens}},
      {"positionIds", {b.positionIds.size(), tokens}},
      {"segmentIds", {b.segmentIds.size(), tokens}},
      {"sequenceIds", {b.sequenceIds.size(), tokens}},
      {"maskedPositions", {b.maskedPositions.size(), predictions}},
      {"maskedLabels", {b.maskedLabels.size(), predictions}},
      {"maskedWeights", {b.maskedWeights.size(), predictions}},
      {"clsPositions", {b.clsPositions.size(), sequences}},
      {"nspLabels", {b.nspLabels.size(), sequences}},
      {"nspWeights", {b.nspWeights.size(), sequences}}};
  for (const auto &[field, sizes] : lengths)
    if (sizes.first != sizes.second)
      throw dataset_error(file.string() + problem + name + " has " + std::to_string(sizes.first) +
                          " " + field + "; its shape needs " + std::to_string(sizes.second));
}

template <typename T, typename Repeated> void copyIn(Repeated &to, const std::vector<T> &from) {
  to.Add(from.begin(), from.end());
}

template <typename T, typename Repeated> std::vector<T> copyOut(const Repeated &from) {
  return std::vector<T>(from.begin(), from.end());
}

void toProto(const PretrainingBatch &b, pb::Batch &out) {
  out.set_batch_size(std::uint32_t(b.batchSize));
  out.set_sequence_length(std::uint32_t(b.sequenceLength));
  out.set_max_predictions(std::uint32_t(b.maxPredictions));
  out.set_max_sequences_per_row(std::uint32_t(b.maxSequencesPerRow));
  copyIn(*out.mutable_token_ids(), b.tokenIds);
  copyIn(*out.mutable_position_ids(), b.positionIds);
  copyIn(*out.mutable_segment_ids(), b.segmentIds);
  copyIn(*out.mutable_sequence_ids(), b.sequenceIds);
  copyIn(*out.mutable_masked_positions(), b.maskedPositions);
  copyIn(*out.mutable_masked_labels(), b.maskedLabels);
  copyIn(*out.mutable_masked_weights(), b.maskedWeights);
  copyIn(*out.mutable_cls_positions(), b.clsPositions);
  copyIn(*out.mutable_nsp_labels(), b.nspLabels);
  copyIn(*out.mutable_nsp_weights(), b.nspWeights);
}

PretrainingBatch fromProto(const pb::Batch &b) {
  PretrainingBatch out;
  out.batchSize = b.batch_size();
  out.sequenceLength = b.sequence_length();
  out.maxPredictions = b.max_predictions();
  out.maxSequencesPerRow = b.max_sequences_per_row();
  out.tokenIds = copyOut<std::uint32_t>(b.token_ids());
  out.positionIds = copyOut<std::uint32_t>(b.position_ids());
  out.segmentIds = copyOut<std::uint32_t>(b.segment_ids());
  out.sequenceIds = copyOut<std::uint32_t>(b.sequence_ids());
  out.maskedPositions = copyOut<std::uint32_t>(b.masked_positions());
  out.maskedLabels = copyOut<std::uint32_t>(b.masked_labels());
  out.maskedWeights = copyOut<float>(b.masked_weights());
  out.clsPositions = copyOut<std::uint32_t>(b.cls_positions());
  out.nspLabels = copyOut<std::uint32_t>(b.nsp_labels());
  out.nspWeights = copyOut<float>(b.nsp_weights());
  return out;
}

void toProto(const BatchFileHeader &h, pb::Header &out) {
  const BertConfig &c = h.config;
  out.set_config_name(c.name);
  out.set_layers(std::uint32_t(c.layers));
  out.set_hidden(std::uint32_t(c.hidden));
  out.set_heads(std::uint32_t(c.heads));
  out.set_ffn(std::uint32_t(c.ffn));
  out.set_vocab_size(std::uint32_t(c.vocabSize));
  out.set_max_positions(std::uint32_t(c.maxPositions));
  out.set_sequence_length(std::uint32_t(c.sequenceLength));
  out.set_max_predictions(std::uint32_t(c.maxPredictions));
  out.set_packing(h.packing);
  out.set_max_sequences_per_row(std::uint32_t(c.maxSequencesPerRow));
  out.set_hidden_dropout(c.hiddenDropout);
  out.set_attention_dropout(c.attentionDropout);
  out.set_layer_norm_epsilon(c.layerNormEpsilon);
  out.set_batch_size(std::uint32_t(h.batchSize));
  out.set_seed(h.seed);
  out.set_corpus(h.corpus);
}

BatchFileHeader fromProto(const pb::Header &h) {
  BatchFileHeader out;
  BertConfig &c = out.config;
  c.name = h.config_name();
  c.layers = h.layers();
  c.hidden = h.hidden();
  c.heads = h.heads();
  c.ffn = h.ffn();
  c.vocabSize = h.vocab_size();
  c.maxPositions = h.max_positions();
  c.sequenceLength = h.sequence_length();
  c.maxPredictions = h.max_predictions();
  c.maxSequencesPerRow = h.max_sequences_per_row();
  c.hiddenDropout = h.hidden_dropout();
  c.attentionDropout = h.attention_dropout();
  c.layerNormEpsilon = h.layer_norm_epsilon();
  out.packing = h.packing();
  out.batchSize = h.batch_size();
  out.seed = h.seed();
  out.corpus = h.corpus();
  return out;
}

} // namespace

void writeBatchFile(const std::filesystem::path &file, const BatchFileHeader &header,
                    const std::vector<PretrainingBatch> &train,
                    const std::vector<PretrainingBatch> &heldOut) {
  constexpr const char *problem = ": cannot write it: ";
  pb::BatchFile message;
  toProto(header, *message.mutable_header());
  for (std::size_t i = 0; i < train.size(); ++i) {
    checkBatch(train[i], header, file, batchName("training", i), problem);
    toProto(train[i], *message.add_train());
  }
  for (std::size_t i = 0; i < heldOut.size(); ++i) {
    checkBatch(heldOut[i], header, file, batchName("held-out", i), problem);
    toProto(heldOut[i], *message.add_held_out());
  }
  std::string payload;
  if (!message.SerializeToString(&payload))
    throw dataset_error("cannot serialise batch file " + file.string() +
                        " (over protobuf's 2 GiB message limit? export fewer --steps)");
  try {
    apps::writeFileAtomically(file, {apps::envelopeHeader(kBatchFileFormat, payload), payload});
  } catch (const apps::file_write_error &e) {
    throw dataset_error(std::string(e.what()) + "; check the path, permissions and free space");
  }
}

BatchFileContents readBatchFile(const std::filesystem::path &file) {
  std::string bytes;
  std::string_view payload;
  try {
    bytes = apps::readWholeFile(file, "batch file");
    payload = apps::openEnvelope(kBatchFileFormat, bytes, file);
  } catch (const apps::file_read_error &e) {
    throw dataset_error(e.what());
  } catch (const apps::envelope_error &e) {
    std::string message = e.what();
    if (e.problem() == apps::EnvelopeProblem::OtherFormat)
      message += "; pass the batches.pb written by bert --export-run";
    throw dataset_error(message);
  }
  pb::BatchFile message;
  if (payload.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()) ||
      !message.ParseFromArray(payload.data(), static_cast<int>(payload.size())))
    throw dataset_error(file.string() + " is corrupt: the payload is not a batch-file message");

  constexpr const char *problem = " is corrupt: ";
  BatchFileContents out;
  out.header = fromProto(message.header());
  for (int i = 0; i < message.train_size(); ++i) {
    out.train.push_back(fromProto(message.train(i)));
    checkBatch(out.train.back(), out.header, file, batchName("training", std::size_t(i)), problem);
  }
  for (int i = 0; i < message.held_out_size(); ++i) {
    out.heldOut.push_back(fromProto(message.held_out(i)));
    checkBatch(out.heldOut.back(), out.header, file, batchName("held-out", std::size_t(i)),
               problem);
  }
  return out;
}

} // namespace tessera::bert
