// ResNet v1.5 (He et al., with the stride on the 3×3 convolution of each bottleneck) built from
// apps/common layers: depth 18 / 34 (basic blocks) or 50 / 101 (bottlenecks), a width
// multiplier on every channel count, and either the small-image stem (3×3 convolution, no max
// pooling: for 28×28 inputs) or the ImageNet stem (7×7 stride 2 + 3×3 max pooling).
#pragma once

#include <cstddef>
#include <map>
#include <string>

#include <tessera/apps/layers/Layer.hpp>

namespace tessera::resnet {

enum class Stem { Small, ImageNet };

struct ResNetConfig {
  unsigned depth = 50;
  double width = 1.0;
  std::size_t inputChannels = 1;
  std::size_t numClasses = 10;
  Stem stem = Stem::Small;
};

/// Throws tessera::apps::cli_error for a depth other than 18, 34, 50, 101 or a width ≤ 0.
void validate(const ResNetConfig &config);

/// Channels after width scaling: max(4, round(channels × width)).
std::size_t scaledChannels(std::size_t channels, double width);

/// The network: input [B][inputChannels][S][S] → logits [B][numClasses].
apps::LayerPtr buildResNet(const ResNetConfig &config);

/// The configuration as flag → text, for checkpoints and records.
std::map<std::string, std::string> describe(const ResNetConfig &config);

} // namespace tessera::resnet
