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

} // namespace tessera::apps
