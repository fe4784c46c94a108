#include <tessera/apps/layers/SoftmaxCrossEntropy.hpp>

#include <popnn/Loss.hpp>
#include <popnn/NonLinearity.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>

#include <tessera/apps/layers/Layer.hpp>

namespace tessera::apps {

LossOutputs softmaxCrossEntropy(poplar::Graph &graph, const poplar::Tensor &logits,
                                const poplar::Tensor &labels, bool withGradient,
                                poplar::program::Sequence &prog) {
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
  prog.add(popnn::calcLoss(graph, probs, labels, rowLoss, deltas, deltasScale, outputScale,
                           numCorrect, popnn::CROSS_ENTROPY_LOSS, "loss"));
  poplar::Tensor sum =
      popops::reduce(graph, rowLoss, poplar::FLOAT, {0}, popops::Operation::ADD, prog, "loss/sum");
  namespace pe = popops::expr;
  poplar::Tensor mean = popops::map(graph, pe::_1 * pe::Const(1.0f / float(batch)),
                                    {sum.reshape({1})}, prog, "loss/mean");
  LossOutputs out{mean, {}, numCorrect};
  if (withGradient)
    out.gradient = deltas;
  return out;
}

} // namespace tessera::apps
