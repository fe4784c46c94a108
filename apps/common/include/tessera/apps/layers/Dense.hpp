// Fully connected layer [B][in] → [B][out] = x · W + b, W [in][out] Xavier-uniform initialised
// (as PyTorch's default scale), b zero.
#pragma once

#include <tessera/apps/layers/Layer.hpp>

namespace tessera::apps {

class Dense : public Layer {
public:
  Dense(std::string name, std::size_t inFeatures, std::size_t outFeatures);
  poplar::Tensor forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                         poplar::program::Sequence &prog) override;
  poplar::Tensor backward(BuildContext &ctx, const poplar::Tensor &gradOut, bool needInputGradient,
                          poplar::program::Sequence &prog) override;

private:
  std::size_t in_, out_;
  Parameter *weights_ = nullptr, *bias_ = nullptr;
  poplar::Tensor input_;
};

} // namespace tessera::apps
