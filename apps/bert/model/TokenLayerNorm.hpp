// Layer normalisation of token rows [T][H] over the hidden features, with a learnt scale γ
// (initialised 1) and shift β (initialised 0), through popnn::ln.
#pragma once

#include <tessera/apps/layers/Layer.hpp>

namespace tessera::bert {

class TokenLayerNorm {
public:
  TokenLayerNorm(std::string name, std::size_t hidden, float epsilon);
  poplar::Tensor forward(apps::BuildContext &ctx, const poplar::Tensor &x, apps::Mode mode,
                         poplar::program::Sequence &prog);
  poplar::Tensor backward(apps::BuildContext &ctx, const poplar::Tensor &gradOut,
                          poplar::program::Sequence &prog);

private:
  std::string name_;
  std::size_t hidden_;
  float epsilon_;
  apps::Parameter *gamma_ = nullptr, *beta_ = nullptr;
  poplar::Tensor whitened_, invStdDev_;
};

} // namespace tessera::bert
