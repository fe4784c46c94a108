// The non-linearities popnn::nonLinearity applies (PopLibs' spelling).
#pragma once

namespace popnn {

enum class NonLinearityType {
  /// y = 1 / (1 + e^-x)
  SIGMOID,
  /// y = max(0, min(1, 0.2 x + 0.5))
  HARD_SIGMOID,
  /// y = max(0, x)
  RELU,
  /// y = tanh(x)
  TANH,
  /// y = x Phi(x), Phi(x) ~ 0.5 (1 + tanh(0.7978845608 (x + 0.044715 x^3)))
  GELU,
  /// y = x Phi(x), Phi(x) = 0.5 (1 + erf(x / sqrt 2))
  GELU_ERF,
  /// y = x sigmoid(x)
  SWISH,
  /// Softmax over the innermost dimension (computed max-subtracted, as SOFTMAX_STABLE).
  SOFTMAX,
  /// Softmax over the innermost dimension, max-subtracted.
  SOFTMAX_STABLE,
  /// SOFTMAX_STABLE multiplied by SOFTMAX_SCALING (reported through `nonLinearityScaling`).
  SOFTMAX_SCALED,
  /// log(softmax(x)) over the innermost dimension: x - max - log(sum(exp(x - max))).
  LOG_SOFTMAX,
};

} // namespace popnn
