#include "model/EncoderLayer.hpp"

#include <popnn/NonLinearity.hpp>
#include <popops/ElementWise.hpp>

namespace tessera::bert {

EncoderLayer::EncoderLayer(apps::BuildContext &ctx, std::string name, const BertConfig &config,
                           std::size_t batch, const poplar::Tensor &dropoutSeed)
    : name_(std::move(name)),
      attention_(ctx, name_ + "/attention",
                 AttentionShape{batch, config.sequenceLength, config.hidden, config.heads},
                 config.attentionDropout, config.initStdDev, dropoutSeed),
      attentionDropout_(ctx, name_ + "/attentionDropout", config.hiddenDropout, dropoutSeed),
      attentionNorm_(name_ + "/attentionNorm", config.hidden, config.layerNormEpsilon),
      intermediate_(name_ + "/intermediate", config.hidden, config.ffn, config.initStdDev),
      output_(name_ + "/output", config.ffn, config.hidden, config.initStdDev),
      outputDropout_(ctx, name_ + "/outputDropout", config.hiddenDropout, dropoutSeed),
      outputNorm_(name_ + "/outputNorm", config.hidden, config.layerNormEpsilon) {}

poplar::Tensor EncoderLayer::forward(apps::BuildContext &ctx, const poplar::Tensor &x,
                                     const poplar::Tensor &maskBias, apps::Mode mode,
                                     poplar::program::Sequence &prog) {
  poplar::Graph &g = ctx.graph;
  poplar::Tensor attended = attention_.forward(ctx, x, maskBias, mode, prog);
  attended = attentionDropout_.forward(ctx, attended, mode, prog);
  poplar::Tensor residual = popops::add(g, x, attended, prog, name_ + "/attentionResidual");
  poplar::Tensor a = attentionNorm_.forward(ctx, residual, mode, prog);

  poplar::Tensor inner = intermediate_.forward(ctx, a, mode, prog);
  if (mode == apps::Mode::Training)
    intermediateInput_ = inner;
  poplar::Tensor activated =
      popnn::nonLinearity(g, popnn::NonLinearityType::GELU, inner, prog, name_ + "/gelu");
  poplar::Tensor out = output_.forward(ctx, activated, mode, prog);
  out = outputDropout_.forward(ctx, out, mode, prog);
  popops::addInPlace(g, out, a, prog, name_ + "/outputResidual");
  return outputNorm_.forward(ctx, out, mode, prog);
}

poplar::Tensor EncoderLayer::backward(apps::BuildContext &ctx, const poplar::Tensor &gradOut,
                                      poplar::program::Sequence &prog) {
  poplar::Graph &g = ctx.graph;
  // The output residual sends its gradient both through the feed-forward block and straight
  // to a.
  poplar::Tensor residualGrad = outputNorm_.backward(ctx, gradOut, prog);
  poplar::Tensor ffnGrad = outputDropout_.backward(ctx, residualGrad, prog);
  ffnGrad = output_.backward(ctx, ffnGrad, true, prog);
  ffnGrad = popnn::nonLinearityInputGradient(g, popnn::NonLinearityType::GELU, intermediateInput_,
                                             ffnGrad, prog, name_ + "/geluGrad");
  poplar::Tensor aGrad = intermediate_.backward(ctx, ffnGrad, true, prog);
  popops::addInPlace(g, aGrad, residualGrad, prog, name_ + "/outputResidualGrad");

  poplar::Tensor attentionResidualGrad = attentionNorm_.backward(ctx, aGrad, prog);
  poplar::Tensor attentionGrad = attentionDropout_.backward(ctx, attentionResidualGrad, prog);
  poplar::Tensor xGrad = attention_.backward(ctx, attentionGrad, prog);
  popops::addInPlace(g, xGrad, attentionResidualGrad, prog, name_ + "/attentionResidualGrad");
  return xGrad;
}

} // namespace tessera::bert
