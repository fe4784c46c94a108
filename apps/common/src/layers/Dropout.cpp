#include <tessera/apps/layers/Dropout.hpp>

#include <sstream>

#include <popnn/Dropout.hpp>

#include <tessera/apps/Errors.hpp>

namespace tessera::apps {

void checkDropRate(const std::string &layer, float rate) {
  if (rate >= 0.0f && rate < 1.0f) // false for NaN too
    return;
  std::ostringstream message;
  message << "layer '" << layer << "': drop rate " << rate
          << " is outside [0, 1) (the probability of dropping; 0 turns dropping off)";
  throw cli_error(message.str());
}

DropoutSite::DropoutSite(BuildContext &ctx, std::string name, float probability,
                         const poplar::Tensor &seed)
    : name_(std::move(name)), probability_(probability), seed_(seed),
      seedModifier_(ctx.nextSeedModifier()) {}

poplar::Tensor DropoutSite::forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                                    poplar::program::Sequence &prog) const {
  if (mode == Mode::Inference || probability_ == 0.0f)
    return x;
  const double keep = 1.0 - double(probability_);
  return popnn::dropout(ctx.graph, &seed_, seedModifier_, x, x, keep, 1.0 / keep, prog,
                        name_ + "/fwd");
}

poplar::Tensor DropoutSite::backward(BuildContext &ctx, const poplar::Tensor &gradOut,
                                     poplar::program::Sequence &prog) const {
  if (probability_ == 0.0f)
    return gradOut;
  // Same seed, modifier and element indices as forward: the same mask and scale.
  const double keep = 1.0 - double(probability_);
  return popnn::dropout(ctx.graph, &seed_, seedModifier_, gradOut, gradOut, keep, 1.0 / keep, prog,
                        name_ + "/bwd");
}

Dropout::Dropout(std::string name, float rate) : Layer(std::move(name)), rate_(rate) {
  checkDropRate(name_, rate_);
}

poplar::Tensor Dropout::forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                                poplar::program::Sequence &prog) {
  if (mode == Mode::Inference)
    return x;
  trained_ = true;
  if (rate_ == 0.0f) // no site, so no seed state and no random numbers
    return x;
  if (!site_)
    site_.emplace(ctx, name_, rate_, ctx.stepSeed());
  return site_->forward(ctx, x, mode, prog);
}

poplar::Tensor Dropout::backward(BuildContext &ctx, const poplar::Tensor &gradOut, bool,
                                 poplar::program::Sequence &prog) {
  if (!trained_)
    throw app_error("layer '" + name_ + "': backward() before a Training forward()");
  return site_ ? site_->backward(ctx, gradOut, prog) : gradOut;
}

} // namespace tessera::apps
