#include <tessera/apps/layers/BatchNorm.hpp>

#include <popnn/BatchNorm.hpp>
#include <popops/ElementWise.hpp>

#include <tessera/apps/Errors.hpp>

#include "layers/NormSupport.hpp"

namespace tessera::apps {
namespace pe = popops::expr;

BatchNorm::BatchNorm(std::string name, std::size_t channels, float momentum, float eps,
                     float gammaInit)
    : Layer(std::move(name)), channels_(channels), momentum_(momentum), eps_(eps),
      gammaInit_(gammaInit) {}

void BatchNorm::createParameters(BuildContext &ctx, const poplar::Tensor &x) {
  graph_ = &ctx.graphHolding(x);
  const unsigned tile = detail::firstTileOf(*graph_, x);
  auto perChannel = [&](const std::string &suffix, float init) {
    return detail::perChannelVariable(ctx, *graph_, name_ + "/" + suffix, channels_, init, tile);
  };
  gamma_ = &ctx.addParameter(name_ + "/gamma", perChannel("gamma", gammaInit_), false);
  beta_ = &ctx.addParameter(name_ + "/beta", perChannel("beta", 0.0f), false);
  runningMean_ = perChannel("runningMean", 0.0f);
  runningVar_ = perChannel("runningVar", 1.0f);
  ctx.addState(name_ + "/runningMean", runningMean_, true);
  ctx.addState(name_ + "/runningVar", runningVar_, true);
}

poplar::Tensor BatchNorm::forward(BuildContext &ctx, const poplar::Tensor &input, Mode mode,
                                  poplar::program::Sequence &prog) {
  if (input.rank() < 2 || input.dim(1) != channels_)
    throw app_error("layer '" + name_ + "' expects " + std::to_string(channels_) +
                    " channels in dimension 1, got shape of rank " + std::to_string(input.rank()));
  if (!gamma_)
    createParameters(ctx, input);
  poplar::Graph &g = *graph_;
  const poplar::Tensor x = detail::inWindow(*graph_, input, input, prog, name_ + "/input");
  const poplar::Type type = x.elementType();
  auto asType = [&](const poplar::Tensor &t) {
    return detail::asType(g, t, type, prog, name_ + "/cast");
  };
  if (mode == Mode::Inference) {
    // y = x · γ/σ + (β − μ·γ/σ) with the running statistics, σ = sqrt(var + eps).
    poplar::Tensor scale = popops::map(g, pe::_1 / pe::Sqrt(pe::_2 + pe::Const(eps_)),
                                       {gamma_->value, runningVar_}, prog, name_ + "/inferScale");
    poplar::Tensor shift =
        popops::map(g, pe::_1 - pe::_2 * pe::_3, {beta_->value, runningMean_, scale}, prog,
                    name_ + "/inferShift");
    return popnn::bn::batchNormalise(g, x, asType(scale), asType(shift), prog, name_);
  }
  auto [mean, invStdDev] =
      popnn::bn::batchNormStatistics(g, x, eps_, prog, false, false, poplar::FLOAT, name_);
  // Running statistics as PyTorch keeps them: unbiased batch variance, momentum-weighted.
  const double n = double(x.numElements()) / double(channels_);
  const float unbias = n > 1 ? float(n / (n - 1)) : 1.0f;
  popops::mapInPlace(
      g, pe::_1 * pe::Const(1 - momentum_) + pe::Cast(pe::_2, poplar::FLOAT) * pe::Const(momentum_),
      {runningMean_, mean}, prog, name_ + "/runningMean");
  popops::mapInPlace(
      g,
      pe::_1 * pe::Const(1 - momentum_) +
          pe::Const(momentum_ * unbias) *
              (pe::Const(1.0f) / pe::Square(pe::Cast(pe::_2, poplar::FLOAT)) - pe::Const(eps_)),
      {runningVar_, invStdDev}, prog, name_ + "/runningVar");
  auto [y, whitened] = popnn::bn::batchNormalise(g, x, asType(gamma_->value), asType(beta_->value),
                                                 mean, invStdDev, prog, name_);
  whitened_ = whitened;
  invStdDev_ = invStdDev;
  return y;
}

poplar::Tensor BatchNorm::backward(BuildContext &, const poplar::Tensor &gradIn,
                                   bool needInputGradient, poplar::program::Sequence &prog) {
  if (!whitened_.valid())
    throw app_error("layer '" + name_ + "': backward() before a Training forward()");
  return detail::normBackward(
      *graph_, name_, whitened_, invStdDev_, gradIn, *gamma_, *beta_, needInputGradient, prog,
      [](auto &&...a) { return popnn::bn::batchNormParamGradients(a...); },
      [](auto &&...a) { return popnn::bn::batchNormGradients(a...); });
}

} // namespace tessera::apps
