#include <tessera/apps/layers/GroupNorm.hpp>

#include <popnn/GroupNorm.hpp>

#include <tessera/apps/Errors.hpp>

#include "layers/NormSupport.hpp"

namespace tessera::apps {

namespace {
/// Conventional (contiguous) channel groups, as PyTorch's GroupNorm; popnn defaults to PopLibs'
/// strided groups.
const poplar::OptionFlags kContiguousGroups{{"groupNormStridedChannelGrouping", "false"}};
} // namespace

GroupNorm::GroupNorm(std::string name, std::size_t channels, std::size_t groups, float eps)
    : Layer(std::move(name)), channels_(channels), groups_(groups), eps_(eps) {
  if (groups_ == 0 || channels_ % groups_ != 0)
    throw cli_error("layer '" + name_ + "': " + std::to_string(groups_) +
                    " groups do not divide its " + std::to_string(channels_) + " channels");
}

poplar::Tensor GroupNorm::forward(BuildContext &ctx, const poplar::Tensor &input, Mode mode,
                                  poplar::program::Sequence &prog) {
  if (input.rank() < 2 || input.dim(1) != channels_)
    throw app_error("layer '" + name_ + "' expects " + std::to_string(channels_) +
                    " channels in dimension 1, got shape of rank " + std::to_string(input.rank()));
  if (!gamma_) {
    graph_ = &ctx.graphHolding(input);
    const unsigned tile = detail::firstTileOf(*graph_, input);
    gamma_ = &ctx.addParameter(
        name_ + "/gamma",
        detail::perChannelVariable(ctx, *graph_, name_ + "/gamma", channels_, 1.0f, tile), false);
    beta_ = &ctx.addParameter(
        name_ + "/beta",
        detail::perChannelVariable(ctx, *graph_, name_ + "/beta", channels_, 0.0f, tile), false);
  }
  poplar::Graph &g = *graph_;
  const poplar::Tensor x = detail::inWindow(g, input, input, prog, name_ + "/input");
  const poplar::Type type = x.elementType();
  auto asType = [&](const poplar::Tensor &t) {
    return detail::asType(g, t, type, prog, name_ + "/cast");
  };
  auto [mean, invStdDev] =
      popnn::gn::groupNormStatistics(g, x, eps_, prog, static_cast<unsigned>(groups_), false, false,
                                     poplar::FLOAT, name_, kContiguousGroups);
  auto [y, whitened] = popnn::gn::groupNormalise(g, x, asType(gamma_->value), asType(beta_->value),
                                                 mean, invStdDev, prog, name_, kContiguousGroups);
  if (mode == Mode::Training) {
    whitened_ = whitened;
    invStdDev_ = invStdDev;
  }
  return y;
}

poplar::Tensor GroupNorm::backward(BuildContext &, const poplar::Tensor &gradIn,
                                   bool needInputGradient, poplar::program::Sequence &prog) {
  if (!whitened_.valid())
    throw app_error("layer '" + name_ + "': backward() before a Training forward()");
  return detail::normBackward(
      *graph_, name_, whitened_, invStdDev_, gradIn, *gamma_, *beta_, needInputGradient, prog,
      [](auto &&...a) { return popnn::gn::groupNormParamGradients(a..., kContiguousGroups); },
      [](auto &&...a) { return popnn::gn::groupNormGradients(a..., kContiguousGroups); });
}

} // namespace tessera::apps
