#include "model/PretrainingHeads.hpp"

#include <poplin/MatMul.hpp>
#include <popnn/Loss.hpp>
#include <popnn/NonLinearity.hpp>
#include <popops/Cast.hpp>
#include <popops/DynamicSlice.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>
#include <popops/Zero.hpp>

#include "model/Parameters.hpp"

namespace tessera::bert {
namespace pe = popops::expr;

namespace {
constexpr std::size_t kNspClasses = 2;
}

PretrainingHeads::PretrainingHeads(std::string name, const BertConfig &config)
    : name_(std::move(name)), config_(config),
      transform_(name_ + "/mlm/transform", config.hidden, config.hidden, config.initStdDev),
      transformNorm_(name_ + "/mlm/transformNorm", config.hidden, config.layerNormEpsilon),
      pooler_(name_ + "/nsp/pooler", config.hidden, config.hidden, config.initStdDev),
      nspClassifier_(name_ + "/nsp/classifier", config.hidden, kNspClasses, config.initStdDev) {}

poplar::Tensor PretrainingHeads::gather(apps::BuildContext &ctx, const poplar::Tensor &hidden,
                                        const poplar::Tensor &indices,
                                        poplar::program::Sequence &prog, const char *what) {
  const std::size_t n = indices.numElements();
  return popops::multiSlice(ctx.graph, hidden, indices.reshape({n, 1}), {0}, {1}, prog,
                            popops::SlicePlan(), {}, name_ + "/" + what + "Gather")
      .reshape({n, hidden.dim(1)});
}

PretrainingHeads::Classification
PretrainingHeads::classify(apps::BuildContext &ctx, const poplar::Tensor &logits,
                           const poplar::Tensor &labels, const poplar::Tensor &lossScale,
                           bool withGradient, poplar::program::Sequence &prog, const char *what) {
  poplar::Graph &g = ctx.graph;
  const std::string prefix = name_ + "/" + what;
  const std::size_t rows = logits.dim(0);
  // Real slots: labels other than MASKED_LABEL_CODE. The mean divides by at least 1 so a batch
  // without any (possible for NSP slots of packed rows) gives 0, not NaN.
  poplar::Tensor real = popops::map(
      g, pe::Select(pe::Const(0.0f), pe::Const(1.0f), pe::_1 == pe::Const(MASKED_LABEL_CODE)),
      {labels}, prog, prefix + "/real");
  poplar::Tensor count =
      popops::reduce(g, real, poplar::FLOAT, {0}, popops::Operation::ADD, prog, prefix + "/count")
          .reshape({1});
  poplar::Tensor inverseCount = popops::map(g, pe::Const(1.0f) / pe::Max(pe::_1, pe::Const(1.0f)),
                                            {count}, prog, prefix + "/inverseCount");
  poplar::Tensor probabilities = popnn::nonLinearity(g, popnn::NonLinearityType::SOFTMAX_STABLE,
                                                     logits, prog, prefix + "/softmax");
  poplar::Tensor rowLoss = g.addVariable(poplar::FLOAT, {rows}, prefix + "/rowLoss");
  apps::mapActivationLinearly(g, rowLoss);
  poplar::Tensor deltas = g.clone(probabilities, prefix + "/deltas");
  poplar::Tensor correct = g.addVariable(poplar::UNSIGNED_INT, {1}, prefix + "/correct");
  g.setTileMapping(correct, 0);
  // The logits' gradient of the mean loss, times the loss scale: deltas carry scale / count.
  poplar::Tensor deltasScale =
      popops::map(g, pe::_1 * pe::_2, {inverseCount, lossScale}, prog, prefix + "/deltasScale");
  poplar::Tensor outputScale = g.addConstant(poplar::FLOAT, {1}, 1.0f, prefix + "/outputScale");
  g.setTileMapping(outputScale, 0);
  // calcLoss adds to `correct` (as in PopLibs); each step reports its own count.
  popops::zero(g, correct, prog, prefix + "/correct/zero");
  prog.add(popnn::calcLoss(g, probabilities, labels, rowLoss, deltas, deltasScale, outputScale,
                           correct, popnn::CROSS_ENTROPY_LOSS, prefix + "/loss"));
  poplar::Tensor sum = popops::reduce(g, rowLoss, poplar::FLOAT, {0}, popops::Operation::ADD, prog,
                                      prefix + "/lossSum")
                           .reshape({1});
  poplar::Tensor loss =
      popops::map(g, pe::_1 * pe::_2, {sum, inverseCount}, prog, prefix + "/lossMean");
  Classification out{loss, correct, count, {}};
  if (withGradient)
    out.deltas = deltas;
  return out;
}

PretrainingLosses PretrainingHeads::forward(apps::BuildContext &ctx, const poplar::Tensor &hidden,
                                            const poplar::Tensor &tokenTable,
                                            const PretrainingLabels &labels,
                                            const poplar::Tensor &lossScale, apps::Mode mode,
                                            poplar::program::Sequence &prog) {
  poplar::Graph &g = ctx.graph;
  const bool training = mode == apps::Mode::Training;
  if (!outputBias_)
    outputBias_ = &addConstantParameter(ctx, name_ + "/mlm/outputBias", config_.vocabSize, 0.0f);

  // Masked LM.
  poplar::Tensor masked = gather(ctx, hidden, labels.maskedIndices, prog, "mlm");
  poplar::Tensor transformInput = transform_.forward(ctx, masked, mode, prog);
  poplar::Tensor activated = popnn::nonLinearity(g, popnn::NonLinearityType::GELU, transformInput,
                                                 prog, name_ + "/mlm/gelu");
  poplar::Tensor transformed = transformNorm_.forward(ctx, activated, mode, prog);
  poplar::Tensor mlmLogits =
      poplin::matMul(g, transformed, tokenTable.transpose(), prog, poplar::FLOAT,
                     name_ + "/mlm/logits", ctx.matMulOptions, &ctx.planningCache);
  namespace pe = popops::expr;
  popops::mapInPlace(g, pe::_1 + pe::Cast(pe::_2, poplar::FLOAT), {mlmLogits, outputBias_->value},
                     prog, name_ + "/mlm/outputBias"); // FLOAT logits, bias of the weights' type
  Classification mlm =
      classify(ctx, mlmLogits, labels.maskedLabels, lossScale, training, prog, "mlm");

  // Next sentence.
  poplar::Tensor cls = gather(ctx, hidden, labels.clsIndices, prog, "nsp");
  poplar::Tensor pooled = pooler_.forward(ctx, cls, mode, prog);
  popops::tanhInPlace(g, pooled, prog, name_ + "/nsp/tanh");
  poplar::Tensor nspLogits = nspClassifier_.forward(ctx, pooled, mode, prog);
  if (nspLogits.elementType() != poplar::FLOAT)
    nspLogits = popops::cast(g, nspLogits, poplar::FLOAT, prog, name_ + "/nsp/logitsCast");
  Classification nsp = classify(ctx, nspLogits, labels.nspLabels, lossScale, training, prog, "nsp");

  if (training) {
    tokens_ = hidden.dim(0);
    tokenTable_ = tokenTable;
    maskedOffsets_ = labels.maskedIndices.reshape({labels.maskedIndices.numElements(), 1});
    clsOffsets_ = labels.clsIndices.reshape({labels.clsIndices.numElements(), 1});
    transformInput_ = transformInput;
    transformed_ = transformed;
    pooled_ = pooled;
    mlmDeltas_ = mlm.deltas;
    nspDeltas_ = nsp.deltas;
  }
  return {mlm.loss, nsp.loss, mlm.correct, nsp.correct, mlm.count, nsp.count};
}

poplar::Tensor PretrainingHeads::backward(apps::BuildContext &ctx,
                                          const poplar::Tensor &tokenTableGradient,
                                          poplar::program::Sequence &prog) {
  poplar::Graph &g = ctx.graph;
  const poplar::Type type = tokenTable_.elementType();
  const std::size_t H = config_.hidden;

  // Masked LM: logits = t·Eᵀ + b → dE = dLogitsᵀ·t, db = Σ dLogits, dt = dLogits·E.
  poplar::Tensor mlmDeltas = mlmDeltas_.elementType() == type
                                 ? mlmDeltas_
                                 : popops::cast(g, mlmDeltas_, type, prog, name_ + "/mlm/cast");
  poplin::matMulWithOutput(g, mlmDeltas.transpose(), transformed_, tokenTableGradient, prog,
                           name_ + "/mlm/tableGrad", ctx.matMulOptions, &ctx.planningCache);
  outputBias_->gradient = popops::reduce(g, mlmDeltas, type, {0}, popops::Operation::ADD, prog,
                                         name_ + "/mlm/outputBiasGrad");
  poplar::Tensor grad =
      poplin::matMul(g, mlmDeltas, tokenTable_, prog, name_ + "/mlm/transformedGrad",
                     ctx.matMulOptions, &ctx.planningCache);
  grad = transformNorm_.backward(ctx, grad, prog);
  grad = popnn::nonLinearityInputGradient(g, popnn::NonLinearityType::GELU, transformInput_, grad,
                                          prog, name_ + "/mlm/geluGrad");
  poplar::Tensor maskedGrad = transform_.backward(ctx, grad, true, prog);

  // Next sentence: pooled = tanh(cls·Wp + bp).
  poplar::Tensor nspDeltas = nspDeltas_.elementType() == type
                                 ? nspDeltas_
                                 : popops::cast(g, nspDeltas_, type, prog, name_ + "/nsp/cast");
  poplar::Tensor pooledGrad = nspClassifier_.backward(ctx, nspDeltas, true, prog);
  pooledGrad = popnn::nonLinearityInputGradient(g, popnn::NonLinearityType::TANH, pooled_,
                                                pooledGrad, prog, name_ + "/nsp/tanhGrad");
  poplar::Tensor clsGrad = pooler_.backward(ctx, pooledGrad, true, prog);

  // Scatter both back onto the hidden rows they were gathered from.
  poplar::Tensor hiddenGrad = g.addVariable(type, {tokens_, H}, name_ + "/hiddenGrad");
  apps::mapActivationLinearly(g, hiddenGrad);
  popops::zero(g, hiddenGrad, prog, name_ + "/hiddenGradZero");
  poplar::Tensor one = g.addConstant(type, {}, 1.0f, name_ + "/one");
  g.setTileMapping(one, 0);
  popops::multiUpdateAdd(g, hiddenGrad, maskedGrad.reshape({maskedGrad.dim(0), 1, H}),
                         maskedOffsets_, one, {0}, {1}, prog, popops::SlicePlan(), {},
                         name_ + "/mlm/scatter");
  popops::multiUpdateAdd(g, hiddenGrad, clsGrad.reshape({clsGrad.dim(0), 1, H}), clsOffsets_, one,
                         {0}, {1}, prog, popops::SlicePlan(), {}, name_ + "/nsp/scatter");
  return hiddenGrad;
}

} // namespace tessera::bert
