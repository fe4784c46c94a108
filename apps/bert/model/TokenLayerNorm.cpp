#include "model/TokenLayerNorm.hpp"

#include <popnn/LayerNorm.hpp>

#include "model/Parameters.hpp"

namespace tessera::bert {

TokenLayerNorm::TokenLayerNorm(std::string name, std::size_t hidden, float epsilon)
    : name_(std::move(name)), hidden_(hidden), epsilon_(epsilon) {}

poplar::Tensor TokenLayerNorm::forward(apps::BuildContext &ctx, const poplar::Tensor &x,
                                       apps::Mode mode, poplar::program::Sequence &prog) {
  if (!gamma_) {
    gamma_ = &addConstantParameter(ctx, name_ + "/gamma", hidden_, 1.0f);
    beta_ = &addConstantParameter(ctx, name_ + "/beta", hidden_, 0.0f);
  }
  // popnn::ln treats [T][H] as T samples of H channels: statistics per token.
  auto [mean, invStdDev] = popnn::ln::layerNormStatistics(
      ctx.graph, x, epsilon_, prog, false, false, poplar::FLOAT, name_ + "/statistics");
  auto [y, whitened] = popnn::ln::layerNormalise(ctx.graph, x, gamma_->value, beta_->value, mean,
                                                 invStdDev, prog, name_ + "/normalise");
  if (mode == apps::Mode::Training) {
    whitened_ = whitened;
    invStdDev_ = invStdDev;
  }
  return y;
}

poplar::Tensor TokenLayerNorm::backward(apps::BuildContext &ctx, const poplar::Tensor &gradOut,
                                        poplar::program::Sequence &prog) {
  auto [gammaGrad, betaGrad] = popnn::ln::layerNormParamGradients(
      ctx.graph, whitened_, gradOut, prog, poplar::FLOAT, name_ + "/paramGrads");
  gamma_->gradient = gammaGrad;
  beta_->gradient = betaGrad;
  return popnn::ln::layerNormGradients(ctx.graph, whitened_, gradOut, invStdDev_, gamma_->value,
                                       prog, poplar::FLOAT, name_ + "/inputGrad");
}

} // namespace tessera::bert
