// The classification head's loss: softmax of the logits, mean cross-entropy over the batch, its
// gradient with respect to the logits ((softmax − one-hot) / B) and the count of correct rows.
#pragma once

#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace tessera::apps {

struct LossOutputs {
  poplar::Tensor loss;       ///< FLOAT [1]: mean cross-entropy over the batch
  poplar::Tensor gradient;   ///< dL/dlogits, logits' shape and type
  poplar::Tensor numCorrect; ///< UNSIGNED_INT [1]
};

/// Appends the loss of `logits` [B][classes] against `labels` [B] (UNSIGNED_INT) to `prog`.
/// With `withGradient` false only loss and accuracy are computed (validation).
LossOutputs softmaxCrossEntropy(poplar::Graph &graph, const poplar::Tensor &logits,
                                const poplar::Tensor &labels, bool withGradient,
                                poplar::program::Sequence &prog);

} // namespace tessera::apps
