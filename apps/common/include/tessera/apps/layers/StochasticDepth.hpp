// Stochastic depth (drop path, Huang et al. 2016), as EfficientNet applies it to the residual
// branch of each block: in Training each sample of the batch keeps its whole input with
// probability p_keep = 1 − rate, scaled by 1 / p_keep, else becomes zero, so the expected output
// is the input while a random subset of blocks is skipped per sample; Inference, and rate 0, is
// the identity. Input [B][…] of any rank >= 1, FLOAT or HALF.
//
// The per-sample mask is poprand's shaped dropout over a [B][1]…[1] reference, seeded by the
// BuildContext's stepSeed() with a fixed per-layer modifier: backward regenerates the mask of
// the same step instead of storing it, and the trainer's seed advance draws new ones each step.
#pragma once

#include <cstdint>

#include <tessera/apps/layers/Layer.hpp>

namespace tessera::apps {

class StochasticDepth : public Layer {
public:
  /// `rate`: the probability of dropping a sample, in [0, 1) (else cli_error naming the layer).
  StochasticDepth(std::string name, float rate);
  poplar::Tensor forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                         poplar::program::Sequence &prog) override;
  poplar::Tensor backward(BuildContext &ctx, const poplar::Tensor &gradOut, bool needInputGradient,
                          poplar::program::Sequence &prog) override;

private:
  /// x · mask / p_keep with this layer's per-sample mask of the current step.
  poplar::Tensor dropSamples(BuildContext &ctx, const poplar::Tensor &x,
                             poplar::program::Sequence &prog, const std::string &pass);

  float rate_;
  std::uint32_t seedModifier_ = 0;
  bool seeded_ = false;  // seedModifier_ drawn (first Training forward with rate > 0)
  bool trained_ = false; // a Training forward has run
  std::vector<std::size_t> inputShape_;
};

} // namespace tessera::apps
