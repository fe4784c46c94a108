// Adaptive-moment optimisers as graph programs, shaped like SgdOptimiser: the learning rate is a
// device variable the host writes each step (handle "learningRate"), every parameter is updated
// in place, and the optimiser's state tensors are registered with the BuildContext so
// checkpoints carry them.
//
// Both keep per parameter a first moment "<parameter>/m" and a second moment "<parameter>/v"
// (FLOAT, zero at initialisation) and one step counter "optimiser/step" (FLOAT [1], the number
// of updates applied so far; exact up to 2^24 steps). Arithmetic is in FLOAT whatever the
// parameter's type; HALF parameters are rounded once, when written back.
//
// Gradients are read from each Parameter's `gradient` when update() is called, so a
// GradientAccumulator that has swapped in its accumulators is honoured, and every gradient is
// first multiplied by the optional `gradientScale` (for loss scaling and accumulation).
#pragma once

#include <memory>

#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <tessera/apps/layers/Layer.hpp>

namespace tessera::apps {

/// What AdamW and LAMB share. Throws app_error naming the field from the optimiser's
/// constructor when a value is out of range.
struct AdaptiveOptions {
  float beta1 = 0.9f;    ///< first-moment decay, in [0, 1)
  float beta2 = 0.999f;  ///< second-moment decay, in [0, 1)
  float epsilon = 1e-6f; ///< added to √v̂, >= 0
  /// Decoupled weight decay (>= 0), applied only to parameters with decay = true.
  float weightDecay = 0.01f;
  /// Divide m by (1 − β1^t) and v by (1 − β2^t), t the 1-based step.
  bool biasCorrection = true;
  /// Optional FLOAT [1] device tensor every gradient is multiplied by before use (e.g.
  /// LossScaler::gradientScale(): 1 / (loss scale · accumulation steps)). Invalid: no scaling.
  poplar::Tensor gradientScale;
};

/// AdamW's defaults: bias correction on.
struct AdamWOptions : AdaptiveOptions {};

/// LAMB's defaults: bias correction off, as Graphcore trained BERT.
struct LambOptions : AdaptiveOptions {
  LambOptions() { biasCorrection = false; }
};

namespace detail {
class AdaptiveMoments;
} // namespace detail

/// AdamW (Loshchilov & Hutter, decoupled weight decay), with g = gradientScale · ∇:
///   m ← β1 m + (1 − β1) g;  v ← β2 v + (1 − β2) g²;
///   w ← w − lr · (m̂ / (√v̂ + ε) + wd · w),
/// m̂, v̂ bias corrected when enabled (else m̂ = m, v̂ = v); wd = 0 for decay = false.
class AdamWOptimiser {
public:
  AdamWOptimiser(BuildContext &ctx, AdamWOptions options = {});
  ~AdamWOptimiser();
  AdamWOptimiser(AdamWOptimiser &&) noexcept;
  AdamWOptimiser &operator=(AdamWOptimiser &&) noexcept;

  /// FLOAT [1]: the learning rate the next update uses (host handles "learningRate", write and
  /// read, as SgdOptimiser's).
  const poplar::Tensor &learningRate() const;
  /// FLOAT [1]: updates applied so far (state "optimiser/step").
  const poplar::Tensor &stepCount() const;
  /// Appends the update of every parameter of `ctx` to `prog`: increments the step, then
  /// updates the moments and the weights. The first call creates the state tensors. Throws
  /// app_error naming a parameter that has no gradient.
  void update(BuildContext &ctx, poplar::program::Sequence &prog);

private:
  std::unique_ptr<detail::AdaptiveMoments> moments_;
};

/// LAMB (You et al., layer-wise adaptive moments), with m̂, v̂ as in AdamW:
///   u = m̂ / (√v̂ + ε) + wd · w;  r = ‖w‖ / ‖u‖ per tensor (1 when either norm is 0);
///   w ← w − lr · r · u.
/// Norms are computed in FLOAT (sum of squares by popops::reduce, then √), all parameters'
/// side by side.
class LambOptimiser {
public:
  LambOptimiser(BuildContext &ctx, LambOptions options = {});
  ~LambOptimiser();
  LambOptimiser(LambOptimiser &&) noexcept;
  LambOptimiser &operator=(LambOptimiser &&) noexcept;

  /// As AdamWOptimiser::learningRate.
  const poplar::Tensor &learningRate() const;
  /// As AdamWOptimiser::stepCount.
  const poplar::Tensor &stepCount() const;
  /// As AdamWOptimiser::update.
  void update(BuildContext &ctx, poplar::program::Sequence &prog);

private:
  std::unique_ptr<detail::AdaptiveMoments> moments_;
};

} // namespace tessera::apps
