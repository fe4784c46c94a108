#include "model/Dropout.hpp"

#include <popnn/Dropout.hpp>

namespace tessera::bert {

DropoutSite::DropoutSite(apps::BuildContext &ctx, std::string name, float probability,
                         const poplar::Tensor &seed)
    : name_(std::move(name)), probability_(probability), seed_(seed),
      seedModifier_(ctx.nextSeedModifier()) {}

poplar::Tensor DropoutSite::forward(apps::BuildContext &ctx, const poplar::Tensor &x,
                                    apps::Mode mode, poplar::program::Sequence &prog) const {
  if (mode == apps::Mode::Inference || probability_ == 0.0f)
    return x;
  const double keep = 1.0 - double(probability_);
  return popnn::dropout(ctx.graph, &seed_, seedModifier_, x, x, keep, 1.0 / keep, prog,
                        name_ + "/fwd");
}

poplar::Tensor DropoutSite::backward(apps::BuildContext &ctx, const poplar::Tensor &gradOut,
                                     poplar::program::Sequence &prog) const {
  if (probability_ == 0.0f)
    return gradOut;
  // Same seed, modifier and element indices as forward: the same mask and scale.
  const double keep = 1.0 - double(probability_);
  return popnn::dropout(ctx.graph, &seed_, seedModifier_, gradOut, gradOut, keep, 1.0 / keep, prog,
                        name_ + "/bwd");
}

} // namespace tessera::bert
