#include <tessera/apps/layers/SoftmaxCrossEntropy.hpp>

#include <popnn/Loss.hpp>
#include <popnn/NonLinearity.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>
#include <popops/Zero.hpp>

#include <popnn/LogSoftmax.hpp>
#include <popops/Cast.hpp>

#include <tessera/apps/Errors.hpp>
#include <tessera/apps/layers/Layer.hpp>

namespace tessera::apps {
namespace pe = popops::expr;
namespace {

/// Turns the one-hot row losses and deltas calcLoss made into those of the smoothed target
/// t = (1 − ε)·onehot + ε/K, in place:
///   rowLoss ← (1 − ε)·rowLoss + ε·mean_k(−log p_k),
///   deltas  ← (1 − ε)·deltas + (ε/B)·(p − 1/K)   (= (p − t)/B, as deltas carry the 1/B),
/// both only on rows whose label is not masked (calcLoss left those at zero). log p comes from
/// a log-softmax of the logits in FLOAT, so it is finite where p underflows.
void smoothLabels(poplar::Graph &graph, const poplar::Tensor &logits, const poplar::Tensor &labels,
                  const poplar::Tensor &probs, const poplar::Tensor &rowLoss,
                  const poplar::Tensor &deltas, bool withGradient, float epsilon,
                  poplar::program::Sequence &prog) {
  const std::size_t batch = logits.dim(0), classes = logits.dim(1);
  const poplar::Tensor floatLogits =
      logits.elementType() == poplar::FLOAT
          ? logits
          : popops::cast(graph, logits, poplar::FLOAT, prog, "loss/smoothing/cast");
  const poplar::Tensor logProbs =
      popnn::logSoftmax(graph, floatLogits, prog, "loss/smoothing/logSoftmax");
  const poplar::Tensor logProbSum = popops::reduce(
      graph, logProbs, poplar::FLOAT, {1}, popops::Operation::ADD, prog, "loss/smoothing/sum");
  const auto valid = [](const pe::PlaceHolder &label) {
    return label != pe::Const(static_cast<unsigned>(MASKED_LABEL_CODE));
  };
  const pe::Const keep(1.0f - epsilon);
  // {rowLoss, Σ_k log p_k, labels}
  popops::mapInPlace(graph,
                     pe::Select(keep * pe::_1 - pe::Const(epsilon / float(classes)) * pe::_2,
                                pe::_1, valid(pe::_3)),
                     {rowLoss, logProbSum, labels}, prog, "loss/smoothing/rowLoss");
  if (!withGradient)
    return;
  // {deltas, p, labels as [B][1]}, in FLOAT, rounded once to the deltas' type.
  const poplar::Type type = deltas.elementType();
  const auto asFloat = [](const pe::PlaceHolder &t) { return pe::Cast(t, poplar::FLOAT); };
  popops::mapInPlace(
      graph,
      pe::Cast(pe::Select(keep * asFloat(pe::_1) +
                              pe::Const(epsilon / float(batch)) *
                                  (asFloat(pe::_2) - pe::Const(1.0f / float(classes))),
                          asFloat(pe::_1), valid(pe::_3)),
               type),
      {deltas, probs, labels.reshape({batch, 1})}, prog, "loss/smoothing/deltas");
}

} // namespace

LossOutputs softmaxCrossEntropy(poplar::Graph &graph, const poplar::Tensor &logits,
                                const poplar::Tensor &labels, bool withGradient,
                                poplar::program::Sequence &prog, float labelSmoothing) {
  if (!(labelSmoothing >= 0 && labelSmoothing < 1))
    throw app_error("softmax cross-entropy: label smoothing " + std::to_string(labelSmoothing) +
                    " must be in [0, 1)");
  const std::size_t batch = logits.dim(0);
  poplar::Tensor probs = popnn::nonLinearity(graph, popnn::NonLinearityType::SOFTMAX_STABLE, logits,
                                             prog, "loss/softmax");
  poplar::Tensor rowLoss = graph.addVariable(poplar::FLOAT, {batch}, "loss/perRow");
  mapActivationLinearly(graph, rowLoss);
  poplar::Tensor deltas = graph.clone(probs, "loss/deltas");
  poplar::Tensor numCorrect = graph.addVariable(poplar::UNSIGNED_INT, {1}, "loss/numCorrect");
  graph.setTileMapping(numCorrect, 0);
  // Mean over the batch: the deltas carry the 1/B of the mean.
  poplar::Tensor deltasScale =
      graph.addConstant(logits.elementType(), {1}, 1.0f / float(batch), "loss/deltasScale");
  poplar::Tensor outputScale = graph.addConstant(logits.elementType(), {1}, 1.0f, "loss/scale");
  graph.setTileMapping(deltasScale, 0);
  graph.setTileMapping(outputScale, 0);
  // calcLoss adds to numCorrect (as in PopLibs); the trainer reads a per-step count.
  popops::zero(graph, numCorrect, prog, "loss/numCorrect/zero");
  prog.add(popnn::calcLoss(graph, probs, labels, rowLoss, deltas, deltasScale, outputScale,
                           numCorrect, popnn::CROSS_ENTROPY_LOSS, "loss"));
  if (labelSmoothing > 0)
    smoothLabels(graph, logits, labels, probs, rowLoss, deltas, withGradient, labelSmoothing, prog);
  poplar::Tensor sum =
      popops::reduce(graph, rowLoss, poplar::FLOAT, {0}, popops::Operation::ADD, prog, "loss/sum");
  poplar::Tensor mean = popops::map(graph, pe::_1 * pe::Const(1.0f / float(batch)),
                                    {sum.reshape({1})}, prog, "loss/mean");
  LossOutputs out{mean, {}, numCorrect};
  if (withGradient)
    out.gradient = deltas;
  return out;
}

} // namespace tessera::apps
