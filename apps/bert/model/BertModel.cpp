#include "model/BertModel.hpp"

#include <popops/ElementWise.hpp>
#include <poputil/TileMapping.hpp>

#include <tessera/apps/Errors.hpp>

namespace tessera::bert {
namespace pe = popops::expr;

namespace {
enum Input : std::size_t {
  kTokenIds,
  kPositionIds,
  kSegmentIds,
  kSequenceIds,
  kMaskedIndices,
  kMaskedLabels,
  kClsIndices,
  kNspLabels
};
// Added to the scores of keys a query must not see: exp() of it is 0 in FLOAT.
constexpr float kMaskedScore = -10000.0f;
} // namespace

BertModel::BertModel(apps::BuildContext &ctx, BertConfig config, std::size_t batchSize)
    : ctx_(ctx), config_(std::move(config)), batch_(batchSize) {
  config_.validate();
  if (batch_ == 0)
    throw apps::cli_error("--batch-size must be at least 1");
  poplar::Graph &g = ctx.graph;
  const auto sizes = streamSizes();
  for (std::size_t i = 0; i < inputs_.size(); ++i) {
    inputs_[i] = g.addVariable(poplar::UNSIGNED_INT, {sizes[i]}, kInputStreams[i]);
    poputil::mapTensorLinearly(g, inputs_[i]);
    streams_[i] = g.addHostToDeviceFIFO(kInputStreams[i], poplar::UNSIGNED_INT, sizes[i]);
  }
  // Dropout seed: the initialisers' seed, then one step further every training step.
  dropoutSeed_ = g.addVariable(poplar::UNSIGNED_INT, {2}, "dropoutSeed");
  g.setTileMapping(dropoutSeed_, 0);
  ctx.initialise.add(poplar::program::Copy(ctx.seedTensor, dropoutSeed_));
  ctx.addState("dropoutSeed", dropoutSeed_);

  const std::size_t tokens = batch_ * config_.sequenceLength;
  embeddings_ = std::make_unique<Embeddings>(ctx, "embeddings", config_, tokens, dropoutSeed_);
  for (std::size_t l = 0; l < config_.layers; ++l)
    layers_.push_back(std::make_unique<EncoderLayer>(ctx, "encoder/layer" + std::to_string(l),
                                                     config_, batch_, dropoutSeed_));
  heads_ = std::make_unique<PretrainingHeads>("heads", config_);
}

BertModel::~BertModel() = default;

std::array<std::size_t, 8> BertModel::streamSizes() const {
  const std::size_t tokens = batch_ * config_.sequenceLength;
  const std::size_t predictions = batch_ * config_.maxPredictions;
  const std::size_t sequences = batch_ * config_.maxSequencesPerRow;
  return {tokens, tokens, tokens, tokens, predictions, predictions, sequences, sequences};
}

void BertModel::checkBatch(const HostBatch &b) const {
  const auto sizes = streamSizes();
  const std::array<const std::vector<std::uint32_t> *, 8> fields{
      &b.tokenIds,      &b.positionIds,  &b.segmentIds, &b.sequenceIds,
      &b.maskedIndices, &b.maskedLabels, &b.clsIndices, &b.nspLabels};
  for (std::size_t i = 0; i < fields.size(); ++i)
    if (fields[i]->size() != sizes[i])
      throw apps::app_error("batch field '" + std::string(kInputStreams[i]) + "' has " +
                            std::to_string(fields[i]->size()) + " elements; the graph takes " +
                            std::to_string(sizes[i]));
}

poplar::program::Sequence BertModel::readInputs() {
  poplar::program::Sequence prog;
  for (std::size_t i = 0; i < inputs_.size(); ++i)
    prog.add(poplar::program::Copy(streams_[i], inputs_[i]));
  return prog;
}

poplar::Tensor BertModel::maskBias(poplar::program::Sequence &prog) {
  // A query sees a key of the same packed sequence; padding (id 0) is seen by nobody.
  const std::size_t B = batch_, S = config_.sequenceLength;
  poplar::Tensor ids = inputs_[kSequenceIds].reshape({B, S});
  poplar::Tensor queryIds = ids.reshape({B, S, 1}).broadcast(unsigned(S), 2);
  poplar::Tensor keyIds = ids.reshape({B, 1, S}).broadcast(unsigned(S), 1);
  return popops::map(ctx_.graph,
                     pe::Select(pe::Const(0.0f), pe::Const(kMaskedScore),
                                pe::_1 == pe::_2 && pe::_2 != pe::Const(0u)),
                     {queryIds, keyIds}, prog, "attentionMask");
}

PretrainingLosses BertModel::trainingPass(const poplar::Tensor &lossScale,
                                          poplar::program::Sequence &prog) {
  const auto mode = apps::Mode::Training;
  poplar::Tensor mask = maskBias(prog);
  poplar::Tensor hidden = embeddings_->forward(
      ctx_, {inputs_[kTokenIds], inputs_[kPositionIds], inputs_[kSegmentIds]}, mode, prog);
  for (auto &layer : layers_)
    hidden = layer->forward(ctx_, hidden, mask, mode, prog);
  PretrainingLosses losses = heads_->forward(
      ctx_, hidden, embeddings_->tokenTable(),
      {inputs_[kMaskedIndices], inputs_[kMaskedLabels], inputs_[kClsIndices], inputs_[kNspLabels]},
      lossScale, mode, prog);
  poplar::Tensor grad = heads_->backward(ctx_, embeddings_->tokenTableGradient(), prog);
  for (auto it = layers_.rbegin(); it != layers_.rend(); ++it)
    grad = (*it)->backward(ctx_, grad, prog);
  embeddings_->backward(ctx_, grad, prog);
  return losses;
}

PretrainingLosses BertModel::evaluationPass(poplar::program::Sequence &prog) {
  const auto mode = apps::Mode::Inference;
  poplar::Tensor mask = maskBias(prog);
  poplar::Tensor hidden = embeddings_->forward(
      ctx_, {inputs_[kTokenIds], inputs_[kPositionIds], inputs_[kSegmentIds]}, mode, prog);
  for (auto &layer : layers_)
    hidden = layer->forward(ctx_, hidden, mask, mode, prog);
  poplar::Tensor one = ctx_.graph.addConstant(poplar::FLOAT, {1}, 1.0f, "evaluation/lossScale");
  ctx_.graph.setTileMapping(one, 0);
  return heads_->forward(
      ctx_, hidden, embeddings_->tokenTable(),
      {inputs_[kMaskedIndices], inputs_[kMaskedLabels], inputs_[kClsIndices], inputs_[kNspLabels]},
      one, mode, prog);
}

void BertModel::advanceDropoutSeed(poplar::program::Sequence &prog) {
  popops::mapInPlace(ctx_.graph, pe::_1 + pe::Const(1u), {dropoutSeed_.slice(1, 2)}, prog,
                     "dropoutSeed/advance");
}

} // namespace tessera::bert
