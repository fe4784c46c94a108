#include <tessera/apps/layers/ProxyNorm.hpp>

#include <cmath>

#include <popnn/GroupNorm.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>
#include <poputil/TileMapping.hpp>

#include <tessera/apps/Errors.hpp>

#include "layers/NormSupport.hpp"

namespace tessera::apps {
namespace {
namespace pe = popops::expr;

/// swish'(u) = σ(u) · (1 + u · (1 − σ(u))).
template <class E> auto swishGradient(const E &u) {
  return pe::Sigmoid(u) * (pe::Const(1.0f) + u * (pe::Const(1.0f) - pe::Sigmoid(u)));
}

/// Every dimension of [B][C][fields…] but the channels'.
std::vector<std::size_t> allButChannels(const poplar::Tensor &t) {
  std::vector<std::size_t> dims{0};
  for (std::size_t d = 2; d < t.rank(); ++d)
    dims.push_back(d);
  return dims;
}

} // namespace

std::vector<float> gaussianQuantiles(std::size_t count) {
  // Φ⁻¹ by bisection on Φ(x) = erfc(−x/√2)/2: exact to float precision in 64 halvings.
  std::vector<float> out(count);
  for (std::size_t k = 0; k < count; ++k) {
    const double p = (double(k) + 0.5) / double(count);
    double lo = -10, hi = 10;
    for (int i = 0; i < 64; ++i) {
      const double mid = 0.5 * (lo + hi);
      (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
    }
    out[k] = static_cast<float>(0.5 * (lo + hi));
  }
  return out;
}

LayerProxyNorm::LayerProxyNorm(std::string name, ProxyNormOptions options)
    : Layer(std::move(name)), options_(options) {
  if (options_.channels == 0 || options_.quantiles == 0)
    throw cli_error("layer '" + name_ + "': proxy norm needs at least one channel and quantile");
}

poplar::Tensor LayerProxyNorm::perChannelView(const poplar::Tensor &c,
                                              const poplar::Tensor &like) const {
  std::vector<std::size_t> shape(like.rank(), 1);
  shape[1] = options_.channels;
  poplar::Tensor v = c.reshape(shape);
  for (unsigned d = 0; d < like.rank(); ++d)
    if (d != 1)
      v = v.broadcast(static_cast<unsigned>(like.dim(d)), d);
  return v;
}

poplar::Tensor LayerProxyNorm::forward(BuildContext &ctx, const poplar::Tensor &input, Mode mode,
                                       poplar::program::Sequence &prog) {
  const std::size_t C = options_.channels, K = options_.quantiles;
  if (input.rank() < 2 || input.dim(1) != C)
    throw app_error("layer '" + name_ + "' expects " + std::to_string(C) +
                    " channels in dimension 1, got shape of rank " + std::to_string(input.rank()));
  if (input.elementType() != poplar::FLOAT)
    throw app_error("layer '" + name_ + "': proxy norm runs in FLOAT; use --precision 32.32");
  if (!gamma_) {
    graph_ = &ctx.graphHolding(input);
    const unsigned tile = detail::firstTileOf(*graph_, input);
    gamma_ = &ctx.addParameter(
        name_ + "/gamma", detail::perChannelVariable(ctx, *graph_, name_ + "/gamma", C, 1.0f, tile),
        false);
    beta_ = &ctx.addParameter(
        name_ + "/beta", detail::perChannelVariable(ctx, *graph_, name_ + "/beta", C, 0.0f, tile),
        false);
    std::vector<float> q;
    for (std::size_t c = 0; c < C; ++c)
      for (float z : gaussianQuantiles(K))
        q.push_back(z);
    // [C][K] work spread over the layer's tiles a row at a time (the maps' outputs follow it):
    // on one tile, a 1280-channel head's proxy alone would outgrow a Mk2 tile.
    quantiles_ = graph_->addConstant(poplar::FLOAT, {C, K}, q.data(), name_ + "/quantiles");
    poputil::mapTensorLinearly(*graph_, quantiles_, 1, K);
    ones_ = graph_->addConstant(poplar::FLOAT, {C}, 1.0f, name_ + "/ones");
    graph_->setTileMapping(ones_, tile);
  }
  poplar::Graph &g = *graph_;
  const poplar::Tensor x = detail::inWindow(g, input, input, prog, name_ + "/input");
  auto [mean, invStdDev] = popnn::gn::groupNormStatistics(g, x, options_.eps, prog, 1, false, false,
                                                          poplar::FLOAT, name_);
  poplar::Tensor whitened = popnn::gn::groupNormWhiten(g, x, mean, invStdDev, prog, name_);
  poplar::Tensor pre =
      popops::map(g, pe::_1 * pe::_2 + pe::_3,
                  {whitened, perChannelView(gamma_->value, x), perChannelView(beta_->value, x)},
                  prog, name_ + "/affine");

  // The proxy: swish(γ z_k + β) per channel, its mean and 1 / standard deviation over k.
  auto overK = [&](const poplar::Tensor &c) { return c.reshape({C, 1}).broadcast(unsigned(K), 1); };
  poplar::Tensor proxyPre = popops::map(g, pe::_1 * pe::_2 + pe::_3,
                                        {quantiles_, overK(gamma_->value), overK(beta_->value)},
                                        prog, name_ + "/proxyAffine");
  poplar::Tensor proxy =
      popops::map(g, pe::_1 * pe::Sigmoid(pe::_1), {proxyPre}, prog, name_ + "/proxySwish");
  poplar::Tensor proxyMean =
      popops::reduce(g, proxy, poplar::FLOAT, {1}, popops::Operation::ADD, prog, name_ + "/mu");
  popops::mulInPlace(g, proxyMean, 1.0f / float(K), prog, name_ + "/muScale");
  poplar::Tensor proxyVar =
      popops::reduce(g,
                     popops::map(g, pe::Square(pe::_1 - pe::_2), {proxy, overK(proxyMean)}, prog,
                                 name_ + "/centred"),
                     poplar::FLOAT, {1}, popops::Operation::ADD, prog, name_ + "/var");
  poplar::Tensor proxyInvStd =
      popops::map(g, pe::Rsqrt(pe::_1 * pe::Const(1.0f / float(K)) + pe::Const(options_.eps)),
                  {proxyVar}, prog, name_ + "/invStd");

  poplar::Tensor out = popops::map(
      g, (pe::_1 * pe::Sigmoid(pe::_1) - pe::_2) * pe::_3,
      {pre, perChannelView(proxyMean, x), perChannelView(proxyInvStd, x)}, prog, name_ + "/out");
  if (mode == Mode::Training) {
    whitened_ = whitened;
    invStdDev_ = invStdDev;
    preActivation_ = pre;
    output_ = out;
    proxyPre_ = proxyPre;
    proxyMean_ = proxyMean;
    proxyInvStd_ = proxyInvStd;
  }
  return out;
}

poplar::Tensor LayerProxyNorm::backward(BuildContext &, const poplar::Tensor &gradIn,
                                        bool needInputGradient, poplar::program::Sequence &prog) {
  if (!whitened_.valid())
    throw app_error("layer '" + name_ + "': backward() before a Training forward()");
  poplar::Graph &g = *graph_;
  const std::size_t K = options_.quantiles;
  const poplar::Tensor grad = detail::inWindow(g, gradIn, whitened_, prog, name_ + "/gradIn");
  const auto dims = allButChannels(grad);
  auto sum = [&](const pe::Expr &e, const std::vector<poplar::Tensor> &ts, const char *what) {
    return popops::reduce(g, popops::map(g, e, ts, prog, name_ + "/" + what), poplar::FLOAT, dims,
                          popops::Operation::ADD, prog, name_ + "/" + what + "Sum");
  };
  const poplar::Tensor s = perChannelView(proxyInvStd_, grad);
  // out = (a − μ) · s with s = (v + ε)^−½: dL/dμ = −Σ g·s, dL/dv = −(s² / 2) Σ g·out.
  poplar::Tensor dMean = sum(pe::Neg(pe::_1 * pe::_2), {grad, s}, "dMu");
  poplar::Tensor dVar = popops::map(g, pe::Neg(pe::Square(pe::_1)) * pe::Const(0.5f) * pe::_2,
                                    {proxyInvStd_, sum(pe::_1 * pe::_2, {grad, output_}, "gOut")},
                                    prog, name_ + "/dVar");
  // Through the proxy: μ = mean_k p_k, v = mean_k (p_k − μ)², p_k = swish(γ z_k + β).
  auto overK = [&](const poplar::Tensor &c) {
    return c.reshape({options_.channels, 1}).broadcast(unsigned(K), 1);
  };
  poplar::Tensor dProxyPre = popops::map(
      g,
      (pe::_1 + pe::_2 * pe::Const(2.0f) * (pe::_3 * pe::Sigmoid(pe::_3) - pe::_4)) *
          pe::Const(1.0f / float(K)) * swishGradient(pe::_3),
      {overK(dMean), overK(dVar), proxyPre_, overK(proxyMean_)}, prog, name_ + "/dProxy");
  poplar::Tensor dGammaProxy =
      popops::reduce(g, popops::map(g, pe::_1 * pe::_2, {dProxyPre, quantiles_}, prog),
                     poplar::FLOAT, {1}, popops::Operation::ADD, prog, name_ + "/dGammaProxy");
  poplar::Tensor dBetaProxy = popops::reduce(g, dProxyPre, poplar::FLOAT, {1},
                                             popops::Operation::ADD, prog, name_ + "/dBetaProxy");
  // Through the activation: dy = g · s · swish'(y); y = γ x̂ + β.
  poplar::Tensor dPre = popops::map(g, pe::_1 * pe::_2 * swishGradient(pe::_3),
                                    {grad, s, preActivation_}, prog, name_ + "/dPre");
  gamma_->gradient = popops::add(g, sum(pe::_1 * pe::_2, {dPre, whitened_}, "dGamma"), dGammaProxy,
                                 prog, name_ + "/dGammaTotal");
  beta_->gradient = popops::add(
      g,
      popops::reduce(g, dPre, poplar::FLOAT, dims, popops::Operation::ADD, prog, name_ + "/dBeta"),
      dBetaProxy, prog, name_ + "/dBetaTotal");
  if (!needInputGradient)
    return {};
  poplar::Tensor dWhitened = popops::map(
      g, pe::_1 * pe::_2, {dPre, perChannelView(gamma_->value, dPre)}, prog, name_ + "/dWhitened");
  return popnn::gn::groupNormGradients(g, whitened_, dWhitened, invStdDev_, ones_, prog,
                                       poplar::FLOAT, name_ + "/grad");
}

} // namespace tessera::apps
