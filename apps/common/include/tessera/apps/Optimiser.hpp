// Optimisers as graph programs: each step reads the learning rate from a device variable the
// host writes every step (so schedules cost no recompilation) and updates every parameter in
// place from its gradient.
#pragma once

#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <tessera/apps/layers/Layer.hpp>

namespace tessera::apps {

struct SgdOptions {
  float momentum = 0.9f;
  float weightDecay = 1e-4f; ///< L2 added to the gradient of parameters with decay = true
  bool nesterov = false;
};

/// SGD with momentum (PyTorch's formulation): g ← ∇ + wd·w; v ← m·v + g;
/// w ← w − lr·v, or w ← w − lr·(g + m·v) with Nesterov. Velocities start at zero and are state
/// tensors (checkpointed) named "<parameter>/velocity".
class SgdOptimiser {
public:
  SgdOptimiser(BuildContext &ctx, SgdOptions options);
  /// FLOAT [1]: the learning rate the next update uses (write it with the host handle
  /// "learningRate" or stream it in).
  const poplar::Tensor &learningRate() const { return learningRate_; }
  /// Appends the update of every parameter of `ctx` to `prog`.
  void update(BuildContext &ctx, poplar::program::Sequence &prog);

private:
  SgdOptions options_;
  poplar::Tensor learningRate_;
  std::vector<poplar::Tensor> velocities_;
};

/// RMSprop as TensorFlow's tf.compat.v1.train.RMSPropOptimizer, the optimiser EfficientNet was
/// trained with (decay 0.9, momentum 0.9, ε 1e-3), plus weight decay as SgdOptimiser adds it:
///   g ← ∇ + wd·w;  ms ← ρ·ms + (1 − ρ)·g²;  mom ← μ·mom + lr·g / sqrt(ms + ε);  w ← w − mom.
/// The learning rate sits inside the momentum, as in TensorFlow, so a schedule's change of rate
/// reaches the weights gradually.
struct RmsPropOptions {
  float decay = 0.9f;        ///< ρ, in [0, 1)
  float momentum = 0.9f;     ///< μ, in [0, 1)
  float epsilon = 1e-3f;     ///< ε inside the square root, > 0
  float weightDecay = 1e-5f; ///< L2 added to the gradient of parameters with decay = true, >= 0
  /// Where ms starts: TensorFlow 1's RMSPropOptimizer starts at 1 (so the first steps are about
  /// lr·g, not lr·g/sqrt(1 − ρ)); Keras's RMSprop starts at 0. >= 0.
  float initialMeanSquare = 1.0f;
};

/// Keeps the state tensors (FLOAT, checkpointed) "<parameter>/rms" (ms) and
/// "<parameter>/momentum" (mom, starting at zero).
class RmsPropOptimiser {
public:
  /// Throws app_error naming the field when an option is out of range.
  RmsPropOptimiser(BuildContext &ctx, RmsPropOptions options);
  /// As SgdOptimiser::learningRate (host handle "learningRate").
  const poplar::Tensor &learningRate() const { return learningRate_; }
  /// Appends the update of every parameter of `ctx` to `prog` (the first call creates the state).
  /// Throws app_error naming a parameter that has no gradient.
  void update(BuildContext &ctx, poplar::program::Sequence &prog);

private:
  RmsPropOptions options_;
  poplar::Tensor learningRate_;
  std::vector<poplar::Tensor> meanSquares_, momenta_;
};

} // namespace tessera::apps
