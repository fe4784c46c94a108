// One dropout site of the model. Its mask is a pure function of the per-step seed tensor, the
// site's fixed seed modifier and each element's index, so the backward pass regenerates the
// same mask instead of storing it, and a run is bit-identical for any thread count or tile
// layout. In Inference mode, and with probability 0, it is the identity.
#pragma once

#include <tessera/apps/layers/Layer.hpp>

namespace tessera::bert {

class DropoutSite {
public:
  /// `seed`: UNSIGNED_INT [2], changed by the trainer every step.
  DropoutSite(apps::BuildContext &ctx, std::string name, float probability,
              const poplar::Tensor &seed);
  poplar::Tensor forward(apps::BuildContext &ctx, const poplar::Tensor &x, apps::Mode mode,
                         poplar::program::Sequence &prog) const;
  /// The gradient through the mask of the last Training forward (same shape as its input).
  poplar::Tensor backward(apps::BuildContext &ctx, const poplar::Tensor &gradOut,
                          poplar::program::Sequence &prog) const;

private:
  std::string name_;
  float probability_;
  poplar::Tensor seed_;
  std::uint32_t seedModifier_;
};

} // namespace tessera::bert
