#include "EfficientNet.hpp"

#include <algorithm>

#include <tessera/apps/Errors.hpp>
#include <tessera/apps/layers/Activations.hpp>
#include <tessera/apps/layers/BatchNorm.hpp>
#include <tessera/apps/layers/Conv2d.hpp>
#include <tessera/apps/layers/Dense.hpp>
#include <tessera/apps/layers/Dropout.hpp>
#include <tessera/apps/layers/GroupNorm.hpp>
#include <tessera/apps/layers/ProxyNorm.hpp>
#include <tessera/apps/layers/Sequential.hpp>
#include <tessera/apps/layers/Simple.hpp>
#include <tessera/apps/layers/SqueezeExcite.hpp>
#include <tessera/apps/layers/StochasticDepth.hpp>

namespace tessera::efficientnet {
namespace {

using apps::LayerPtr;

/// Channels per group of --norm group (fewer groups where a layer's channels are not a
/// multiple: every width here is a multiple of 8).
constexpr std::size_t kGroupNormChannels = 16;

/// convolution → norm (→ swish): the unit every part of the network is made of. With
/// layer-proxy, "norm → swish" is one LayerProxyNorm (layer norm, then the swish proxy-
/// normalised), and a norm without activation is a plain layer norm.
void convNorm(apps::Sequential &seq, const std::string &name, std::size_t in, std::size_t out,
              unsigned kernel, unsigned stride, std::size_t groups, Norm norm, bool swish) {
  apps::Conv2dOptions conv;
  conv.inChannels = in;
  conv.outChannels = out;
  conv.kernel = kernel;
  conv.stride = stride;
  conv.padding = kernel / 2;
  conv.groups = groups;
  seq.add(std::make_unique<apps::Conv2d>(name + "/conv", conv));
  switch (norm) {
  case Norm::Batch:
    seq.add(std::make_unique<apps::BatchNorm>(name + "/bn", out));
    break;
  case Norm::Group: {
    const std::size_t perGroup = out % kGroupNormChannels == 0 ? kGroupNormChannels : 8;
    seq.add(std::make_unique<apps::GroupNorm>(name + "/gn", out,
                                              std::max<std::size_t>(1, out / perGroup)));
    break;
  }
  case Norm::LayerProxy:
    if (swish) {
      seq.add(std::make_unique<apps::LayerProxyNorm>(name + "/lnpn", apps::ProxyNormOptions{out}));
      return;
    }
    seq.add(std::make_unique<apps::GroupNorm>(name + "/ln", out, 1));
    break;
  }
  if (swish)
    seq.add(std::make_unique<apps::Swish>(name + "/swish"));
}

} // namespace

LayerPtr buildMBConv(const BlockSpec &b, Norm norm) {
  auto main = std::make_unique<apps::Sequential>(b.name + "/main");
  if (b.expandRatio != 1)
    convNorm(*main, b.name + "/expand", b.inChannels, b.expandedChannels, 1, 1, 1, norm, true);
  convNorm(*main, b.name + "/spatial", b.expandedChannels, b.expandedChannels, b.kernel, b.stride,
           b.groups, norm, true);
  main->add(std::make_unique<apps::SqueezeExcite>(
      b.name + "/se", apps::SqueezeExciteOptions{b.expandedChannels, b.squeezeChannels}));
  convNorm(*main, b.name + "/project", b.expandedChannels, b.outChannels, 1, 1, 1, norm, false);
  if (!b.residual)
    return main;
  if (b.dropConnectRate > 0)
    main->add(std::make_unique<apps::StochasticDepth>(b.name + "/dropPath",
                                                      static_cast<float>(b.dropConnectRate)));
  return std::make_unique<apps::Residual>(b.name, std::move(main), nullptr,
                                          apps::ResidualActivation::None);
}

LayerPtr buildEfficientNet(const EfficientNetConfig &config) {
  const NetworkSpec net = resolve(config);
  auto model = std::make_unique<apps::Sequential>("efficientnet-" + config.variant);
  convNorm(*model, "stem", config.inputChannels, net.stemChannels, 3, net.stemStride, 1,
           config.norm, true);
  for (const BlockSpec &b : net.blocks)
    model->add(buildMBConv(b, config.norm));
  convNorm(*model, "head", net.blocks.back().outChannels, net.headChannels, 1, 1, 1, config.norm,
           true);
  model->add(std::make_unique<apps::GlobalAvgPool>("pool"));
  if (net.dropoutRate > 0)
    model->add(std::make_unique<apps::Dropout>("dropout", static_cast<float>(net.dropoutRate)));
  model->add(std::make_unique<apps::Dense>("fc", net.headChannels, config.numClasses));
  return model;
}

} // namespace tessera::efficientnet
