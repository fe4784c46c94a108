// The classification head's loss: softmax of the logits, mean cross-entropy over the batch, its
// gradient with respect to the logits ((softmax − target) / B) and the count of correct rows. The
// target is the one-hot label or, with label smoothing ε, (1 − ε)·one-hot + ε/K over K classes
// (Szegedy et al. 2016), so each row's loss is (1 − ε)·(−log p_label) + ε·mean_k(−log p_k).
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
/// With `withGradient` false only loss and accuracy are computed (validation). A row labelled
/// MASKED_LABEL_CODE adds nothing to the loss (still divided by B) and gets a zero gradient.
/// `labelSmoothing` ε is in [0, 1) (else app_error); 0 builds exactly the one-hot loss.
LossOutputs softmaxCrossEntropy(poplar::Graph &graph, const poplar::Tensor &logits,
                                const poplar::Tensor &labels, bool withGradient,
                                poplar::program::Sequence &prog, float labelSmoothing = 0.0f);

} // namespace tessera::apps
