// A fully connected projection of token rows, [T][in] → [T][out] = x · W + b, with BERT's
// initialisation (W truncated normal, b zero). Forward saves its input for the weight gradient.
#pragma once

#include <tessera/apps/layers/Layer.hpp>

namespace tessera::bert {

class Linear {
public:
  Linear(std::string name, std::size_t in, std::size_t out, float initStdDev);

  /// Creates the parameters on the first call; in Training mode remembers `x`.
  poplar::Tensor forward(apps::BuildContext &ctx, const poplar::Tensor &x, apps::Mode mode,
                         poplar::program::Sequence &prog);
  /// Fills the weight and bias gradients; returns dL/dx when `needInputGradient`.
  poplar::Tensor backward(apps::BuildContext &ctx, const poplar::Tensor &gradOut,
                          bool needInputGradient, poplar::program::Sequence &prog);

  const std::string &name() const { return name_; }
  apps::Parameter &weights() const { return *weights_; }

private:
  std::string name_;
  std::size_t in_, out_;
  float initStdDev_;
  apps::Parameter *weights_ = nullptr, *bias_ = nullptr;
  poplar::Tensor input_;
};

} // namespace tessera::bert
