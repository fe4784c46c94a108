// Loss scaling for reduced-precision training: the loss gradient is multiplied by a scale so
// small HALF gradients do not flush to zero, and the optimiser divides it out again.
//
// Static scaling keeps the scale fixed. Dynamic scaling (as Graphcore's and NVIDIA's): every
// step checks all gradients for inf/NaN on the device; a step with any is skipped (weights and
// optimiser state untouched), the scale halves (not below minScale) and "skippedSteps" counts
// it; after growthInterval consecutive good steps the scale doubles (not above maxScale).
//
// Device state (FLOAT [1] each, registered with ctx.addState so checkpoints carry it):
//   "lossScale" (host handles "lossScale", read and write), "skippedSteps" (host handle
//   "skippedSteps", read), "lossScale/goodSteps" (good steps since the scale last changed),
//   plus "lossScale/gradientScale" (derived, recomputed every step; not state).
//
// Wiring a trainer (see also GradientAccumulator.hpp):
//   LossScaler scaler(ctx, {...});
//   seed the backward pass with dL/dloss · scaler.scale();
//   AdamWOptimiser opt(ctx, [&] { AdamWOptions o; o.gradientScale = scaler.gradientScale();
//                                 return o; }());
//   Sequence update; opt.update(ctx, update);
//   scaler.guardedUpdate(step, update);
#pragma once

#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <tessera/apps/layers/Layer.hpp>

namespace tessera::apps {

struct LossScalingOptions {
  /// false: static scaling with initialScale for the whole run.
  bool dynamic = true;
  /// Scale at initialisation (> 0); 2^15 as Graphcore's BERT.
  float initialScale = 32768.0f;
  /// Dynamic: consecutive good steps before the scale doubles (>= 1).
  unsigned growthInterval = 2000;
  /// Dynamic: bounds of the scale (0 < minScale <= initialScale <= maxScale).
  float minScale = 1.0f;
  float maxScale = 16777216.0f; // 2^24
  /// Micro-batches whose gradients are summed per step (>= 1): gradientScale() divides by it
  /// too, so the optimiser sees the mean gradient.
  unsigned accumulationSteps = 1;
};

class LossScaler {
public:
  /// Creates the state tensors (initialised in ctx.initialise). Throws app_error naming the
  /// option that is out of range. `ctx` must outlive the scaler.
  LossScaler(BuildContext &ctx, LossScalingOptions options = {});

  /// FLOAT [1]: the current loss scale; multiply the loss gradient seed by it.
  const poplar::Tensor &scale() const { return scale_; }
  /// FLOAT [1]: 1 / (scale · accumulationSteps), for the optimiser's gradientScale option. It
  /// is recomputed at the start of guardedUpdate (and at initialisation), so it always matches
  /// the scale the step's gradients were computed with.
  const poplar::Tensor &gradientScale() const { return gradientScale_; }
  /// FLOAT [1]: steps skipped because a gradient was not finite.
  const poplar::Tensor &skippedSteps() const { return skippedSteps_; }

  /// Appends to `prog`: gradientScale ← 1 / (scale · accumulationSteps); then, when static,
  /// `update`; when dynamic, the check of every parameter's gradient (Parameter::gradient as it
  /// is now, i.e. the accumulators if a GradientAccumulator swapped them in) and
  /// If(all finite, {update; count the good step, maybe double the scale},
  ///    {halve the scale; skippedSteps += 1; good steps ← 0}).
  void guardedUpdate(poplar::program::Sequence &prog, const poplar::program::Sequence &update);

  /// Appends the check alone: returns a BOOL scalar, true iff every gradient of the context
  /// is finite. Throws app_error naming a parameter without a gradient.
  poplar::Tensor allGradientsFinite(poplar::program::Sequence &prog) const;

private:
  BuildContext &ctx_;
  LossScalingOptions options_;
  poplar::Tensor scale_, gradientScale_, skippedSteps_, goodSteps_;
};

} // namespace tessera::apps
