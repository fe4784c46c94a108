#include <tessera/apps/layers/StochasticDepth.hpp>

#include <poprand/RandomGen.hpp>

#include <tessera/apps/Errors.hpp>
#include <tessera/apps/layers/Dropout.hpp>

namespace tessera::apps {

StochasticDepth::StochasticDepth(std::string name, float rate)
    : Layer(std::move(name)), rate_(rate) {
  checkDropRate(name_, rate_);
}

poplar::Tensor StochasticDepth::dropSamples(BuildContext &ctx, const poplar::Tensor &x,
                                            poplar::program::Sequence &prog,
                                            const std::string &pass) {
  // The reference is x's first element of every sample: shape [B][1]…[1], so sample b's mask
  // is element b of the mask poprand draws — the same in forward and backward whatever the
  // layout of x or of the gradient (the mask depends on indices, not tiles).
  std::vector<std::size_t> end(x.rank(), 1);
  end[0] = x.dim(0);
  const poplar::Tensor reference = x.slice(std::vector<std::size_t>(x.rank(), 0), end);
  const double keep = 1.0 - double(rate_);
  return poprand::shapedDropout(ctx.graph, &ctx.stepSeed(), seedModifier_, x, reference, keep,
                                1.0 / keep, prog, name_ + pass);
}

poplar::Tensor StochasticDepth::forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                                        poplar::program::Sequence &prog) {
  if (x.rank() < 1 || x.dim(0) == 0)
    throw app_error("layer '" + name_ + "' expects input [B][…] with at least one sample");
  if (mode == Mode::Inference)
    return x;
  trained_ = true;
  inputShape_ = x.shape();
  if (rate_ == 0.0f) // no seed, no random numbers
    return x;
  if (!seeded_) {
    seedModifier_ = ctx.nextSeedModifier();
    seeded_ = true;
  }
  return dropSamples(ctx, x, prog, "/fwd");
}

poplar::Tensor StochasticDepth::backward(BuildContext &ctx, const poplar::Tensor &gradOut, bool,
                                         poplar::program::Sequence &prog) {
  if (!trained_)
    throw app_error("layer '" + name_ + "': backward() before a Training forward()");
  if (gradOut.shape() != inputShape_)
    throw app_error("layer '" + name_ + "': the output gradient's shape differs from the input's");
  if (rate_ == 0.0f)
    return gradOut;
  return dropSamples(ctx, gradOut, prog, "/bwd");
}

} // namespace tessera::apps
