// Losses with their gradients, accuracy counting and arg max / min / top-k of rows.
//
// modelOutputs is [batch][classes] (FLOAT or HALF); expected holds one label per row
// ([batch], UNSIGNED_INT or INT). A label equal to MASKED_LABEL_CODE (all bits set; -1 as INT)
// marks a masked position (e.g. unused masked-LM slots): its loss and deltas are 0 and it never
// counts as correct. Shape and type errors throw poputil::poplibs_error naming the tensor.
#pragma once

#include <utility>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

#include <popops/EncodingConstants.hpp> // MASKED_LABEL_CODE

namespace popnn {

enum LossType {
  /// loss = 0.5 * sum_c (x_c - onehot_c)^2, deltas = x - onehot.
  SUM_SQUARED_LOSS,
  /// modelOutputs are probabilities p (e.g. softmax outputs) carrying the factor
  /// modelOutputScaling: loss = -log(p_label / modelOutputScaling) (p floored at the smallest
  /// normal float), deltas = (p / modelOutputScaling - onehot) * deltasScale, the gradient with
  /// respect to the logits of a softmax.
  CROSS_ENTROPY_LOSS,
};

/// Writes per-row `loss` ([batch]) and `deltas` ([batch][classes], same type as modelOutputs).
/// deltasScale and modelOutputScaling are one-element tensors (CROSS_ENTROPY_LOSS only).
poplar::program::Program calcLoss(poplar::Graph &graph, const poplar::Tensor &modelOutputs,
                                  const poplar::Tensor &expected, const poplar::Tensor &loss,
                                  const poplar::Tensor &deltas, const poplar::Tensor &deltasScale,
                                  const poplar::Tensor &modelOutputScaling, LossType lossType,
                                  const poplar::DebugContext &debugContext = {});

/// As above with deltasScale = modelOutputScaling = 1.
poplar::program::Program calcLoss(poplar::Graph &graph, const poplar::Tensor &modelOutputs,
                                  const poplar::Tensor &expected, const poplar::Tensor &loss,
                                  const poplar::Tensor &deltas, LossType lossType,
                                  const poplar::DebugContext &debugContext = {});

/// calcLoss followed by calcAccuracy: adds the batch's correct count to `numCorrect`.
poplar::program::Program calcLoss(poplar::Graph &graph, const poplar::Tensor &modelOutputs,
                                  const poplar::Tensor &expected, const poplar::Tensor &loss,
                                  const poplar::Tensor &deltas, const poplar::Tensor &deltasScale,
                                  const poplar::Tensor &modelOutputScaling,
                                  const poplar::Tensor &numCorrect, LossType lossType,
                                  const poplar::DebugContext &debugContext = {});
poplar::program::Program calcLoss(poplar::Graph &graph, const poplar::Tensor &modelOutputs,
                                  const poplar::Tensor &expected, const poplar::Tensor &loss,
                                  const poplar::Tensor &deltas, const poplar::Tensor &numCorrect,
                                  LossType lossType, const poplar::DebugContext &debugContext = {});

/// Counts rows whose arg max (lowest index among equal maxima) equals their label and adds
/// the count to `numCorrect` (one UNSIGNED_INT element), as PopLibs does: the caller zeroes it
/// (e.g. popops::zero) where it wants a per-batch count, or once to accumulate over batches.
poplar::program::Program calcAccuracy(poplar::Graph &graph, const poplar::Tensor &modelOutputs,
                                      const poplar::Tensor &expected,
                                      const poplar::Tensor &numCorrect,
                                      const poplar::DebugContext &debugContext = {});

/// Index of the largest element of each row of a 2-D `input`: [rows], UNSIGNED_INT.
poplar::Tensor argMax(poplar::Graph &graph, const poplar::Tensor &input,
                      poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {});

/// Index of the smallest element of each row of a 2-D `input`: [rows], UNSIGNED_INT.
poplar::Tensor argMin(poplar::Graph &graph, const poplar::Tensor &input,
                      poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {});

/// (max, argMax) of each row of a 2-D `input`: values [rows] in input's type and indices
/// [rows] UNSIGNED_INT (lowest index among equal maxima).
std::pair<poplar::Tensor, poplar::Tensor>
maxAndArgMax(poplar::Graph &graph, const poplar::Tensor &input, poplar::program::Sequence &prog,
             const poplar::DebugContext &debugContext = {});

/// (min, argMin) of each row of a 2-D `input`, as maxAndArgMax.
std::pair<poplar::Tensor, poplar::Tensor>
minAndArgMin(poplar::Graph &graph, const poplar::Tensor &input, poplar::program::Sequence &prog,
             const poplar::DebugContext &debugContext = {});

/// The K largest values of each row of a 2-D `input` ([rows][K]); their indices go to `indices`.
/// With `sort` they are in descending order.
poplar::Tensor topK(poplar::Graph &graph, const poplar::Tensor &input, poplar::Tensor &indices,
                    unsigned K, bool sort, poplar::program::Sequence &prog,
                    const poplar::DebugContext &debugContext = {});

} // namespace popnn
