// Gradient accumulation: several micro-batches' gradients summed on the device before one
// optimiser step, so a trainer reaches a large global batch with a small device batch.
//
// Design: the accumulator takes the parameters' gradients over. Its constructor gives every
// Parameter of the context a FLOAT accumulator "<parameter>/accumulated" (state, zero at
// initialisation), remembers the gradient the backward pass writes (rawGradient) and sets
// Parameter::gradient to the accumulator. Everything built afterwards that reads gradients —
// optimisers, LossScaler's overflow check, host handles — then sees the accumulated sum with no
// further plumbing. A step is therefore:
//
//   repeat N times: forward/backward (writes raw gradients); accumulator.accumulate(prog)
//   lossScaler.guardedUpdate(prog, optimiserUpdate)  // or optimiser.update(ctx, prog)
//   accumulator.reset(prog)
//
// with the optimiser's gradientScale dividing by N (and by the loss scale) so it sees the mean.
#pragma once

#include <vector>

#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <tessera/apps/layers/Layer.hpp>

namespace tessera::apps {

class GradientAccumulator {
public:
  /// Builds one accumulator per parameter of `ctx` (all must already have gradients: build the
  /// backward pass first; throws app_error naming a parameter without one) and swaps it into
  /// Parameter::gradient. `ctx` must outlive the accumulator.
  explicit GradientAccumulator(BuildContext &ctx);

  /// Appends accumulator += raw gradient (in FLOAT) for every parameter.
  void accumulate(poplar::program::Sequence &prog) const;
  /// Appends accumulator ← 0 for every parameter.
  void reset(poplar::program::Sequence &prog) const;

  /// The gradient the backward pass writes for parameter `index` (in ctx.parameters() order).
  const poplar::Tensor &rawGradient(std::size_t index) const { return raw_.at(index); }
  /// The accumulator of parameter `index` (FLOAT, shaped and mapped as the parameter).
  const poplar::Tensor &accumulated(std::size_t index) const { return accumulated_.at(index); }
  std::size_t size() const { return raw_.size(); }

private:
  BuildContext &ctx_;
  std::vector<poplar::Tensor> raw_;
  std::vector<poplar::Tensor> accumulated_;
};

} // namespace tessera::apps
