// EfficientNet's shape as numbers, before any graph exists: the B0 baseline's stages, the
// compound scaling of B1–B4 (width, depth and resolution coefficients, filters rounded to
// multiples of 8, repeats rounded up), the stochastic-depth rate of every block, and Graphcore's
// G16 variant (grouped k×k convolutions of 16 channels per group, expansion ratio 4).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace tessera::efficientnet {

enum class Norm { Batch, Group, LayerProxy };

/// The --norm name of `norm`: "batch", "group" or "layer-proxy".
std::string normName(Norm norm);
/// The Norm called `name` (as normName gives it); cli_error naming --norm, listing the names and
/// suggesting the nearest, for any other.
Norm normByName(const std::string &name);

/// The smallest --image-size: Fashion-MNIST's images are 28 × 28 (larger sizes pad them).
constexpr std::size_t kMinImageSize = 28;

struct EfficientNetConfig {
  std::string variant = "b0"; ///< b0 … b4: the compound-scaling coefficients
  double widthMultiplier = 0; ///< 0: the variant's
  double depthMultiplier = 0; ///< 0: the variant's
  /// Channels per group of the k×k convolutions: 1 is depthwise (the paper), 16 is G16.
  std::size_t groupSize = 1;
  /// Expansion ratio of the MBConv blocks after the first stage; 0: 6, or 4 with groupSize > 1.
  std::size_t expandRatio = 0;
  Norm norm = Norm::Batch;
  /// Stride-1 stem for 28–32 px images (the paper's stem halves the image first).
  bool smallImageStem = true;
  std::size_t inputChannels = 1;
  std::size_t numClasses = 10;
  double dropConnectRate = 0.2; ///< of the last block; earlier blocks scale it by depth
};

/// One MBConv block, fully resolved.
struct BlockSpec {
  std::string name; ///< "stage3/block2"
  std::size_t inChannels = 0;
  std::size_t outChannels = 0;
  std::size_t expandRatio = 1;
  std::size_t expandedChannels = 0; ///< inChannels × expandRatio
  unsigned kernel = 3;
  unsigned stride = 1;
  std::size_t groups = 1;          ///< of the k×k convolution (expandedChannels: depthwise)
  std::size_t squeezeChannels = 0; ///< max(1, inChannels / 4)
  double dropConnectRate = 0;      ///< this block's stochastic-depth rate
  bool residual = false;           ///< stride 1 and inChannels == outChannels
};

struct NetworkSpec {
  std::size_t stemChannels = 0;
  unsigned stemStride = 2;
  std::vector<BlockSpec> blocks;
  std::size_t headChannels = 0;
  double dropoutRate = 0;     ///< before the classifier
  std::size_t resolution = 0; ///< the variant's ImageNet resolution (informative here)
};

struct Coefficients {
  double width, depth;
  std::size_t resolution;
  double dropout;
};

/// The paper's coefficients of `variant` (b0 … b4); cli_error listing them for another name.
Coefficients coefficientsOf(const std::string &variant);

/// The paper's filter rounding: channels × width to a multiple of 8 (at least 8), never more
/// than 10 % below the exact product.
std::size_t roundFilters(std::size_t channels, double width);
/// Repeats × depth, rounded up.
std::size_t roundRepeats(std::size_t repeats, double depth);

/// Resolves every block. Throws cli_error naming the block when the group size does not divide
/// its expanded channels, and for bad multipliers.
NetworkSpec resolve(const EfficientNetConfig &config);

/// Everything the efficientnet program checks before reading data: resolve()'s checks, then
/// `imageSize` at least kMinImageSize (else cli_error naming --image-size).
void validate(const EfficientNetConfig &config, std::size_t imageSize);

/// The configuration as setting → text, for checkpoints and records.
std::map<std::string, std::string> describe(const EfficientNetConfig &config);

} // namespace tessera::efficientnet
