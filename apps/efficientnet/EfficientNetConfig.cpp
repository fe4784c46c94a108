#include "EfficientNetConfig.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <tessera/apps/Errors.hpp>
#include <tessera/apps/TrainingOptions.hpp>

namespace tessera::efficientnet {
namespace {

/// B0's stages (Tan & Le 2019, table 1): expansion, kernel, stride, output channels, repeats.
struct StageSpec {
  std::size_t expand;
  unsigned kernel, stride;
  std::size_t channels, repeats;
};
constexpr StageSpec kB0Stages[] = {
    {1, 3, 1, 16, 1},  {6, 3, 2, 24, 2},  {6, 5, 2, 40, 2},  {6, 3, 2, 80, 3},
    {6, 5, 1, 112, 3}, {6, 5, 2, 192, 4}, {6, 3, 1, 320, 1},
};
constexpr std::size_t kStemChannels = 32, kHeadChannels = 1280;

const std::map<std::string, Coefficients> &variants() {
  static const std::map<std::string, Coefficients> table = {
      {"b0", {1.0, 1.0, 224, 0.2}}, {"b1", {1.0, 1.1, 240, 0.2}}, {"b2", {1.1, 1.2, 260, 0.3}},
      {"b3", {1.2, 1.4, 300, 0.3}}, {"b4", {1.4, 1.8, 380, 0.4}},
  };
  return table;
}

/// --norm names, in Norm's order.
constexpr const char *kNormNames[] = {"batch", "group", "layer-proxy"};
static_assert(std::size(kNormNames) == static_cast<std::size_t>(Norm::LayerProxy) + 1,
              "every Norm needs a --norm name");

std::string text(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

} // namespace

std::string normName(Norm norm) { return kNormNames[static_cast<std::size_t>(norm)]; }

Norm normByName(const std::string &name) {
  const std::vector<std::string> names(std::begin(kNormNames), std::end(kNormNames));
  for (std::size_t i = 0; i < names.size(); ++i)
    if (name == names[i])
      return static_cast<Norm>(i);
  std::string message = "--norm '" + name + "' is not one of batch, group, layer-proxy";
  if (const auto near = apps::nearestName(name, names); !near.empty())
    message += "; did you mean '" + near + "'?";
  throw apps::cli_error(message);
}

Coefficients coefficientsOf(const std::string &variant) {
  const auto &table = variants();
  if (const auto it = table.find(variant); it != table.end())
    return it->second;
  std::vector<std::string> names;
  for (const auto &[name, c] : table)
    names.push_back(name);
  std::string message = "--variant '" + variant + "' is not one of b0, b1, b2, b3, b4";
  if (const auto near = apps::nearestName(variant, names); !near.empty())
    message += "; did you mean '" + near + "'?";
  throw apps::cli_error(message);
}

std::size_t roundFilters(std::size_t channels, double width) {
  constexpr double divisor = 8;
  const double exact = double(channels) * width;
  double rounded = std::max(divisor, std::floor((exact + divisor / 2) / divisor) * divisor);
  if (rounded < 0.9 * exact)
    rounded += divisor;
  return static_cast<std::size_t>(rounded);
}

std::size_t roundRepeats(std::size_t repeats, double depth) {
  return static_cast<std::size_t>(std::ceil(depth * double(repeats)));
}

NetworkSpec resolve(const EfficientNetConfig &config) {
  const Coefficients c = coefficientsOf(config.variant);
  const double width = config.widthMultiplier > 0 ? config.widthMultiplier : c.width;
  const double depth = config.depthMultiplier > 0 ? config.depthMultiplier : c.depth;
  for (auto [value, flag] : {std::pair{config.widthMultiplier, "--width"},
                             {config.depthMultiplier, "--depth-multiplier"}})
    if (!(value >= 0) || !std::isfinite(value))
      throw apps::cli_error(std::string(flag) +
                            " must be a positive number (0: the variant's), "
                            "got " +
                            text(value));
  if (config.groupSize == 0)
    throw apps::cli_error("--group-size must be at least 1 (1: depthwise)");
  if (!(config.dropConnectRate >= 0 && config.dropConnectRate < 1))
    throw apps::cli_error("--drop-connect must be in [0, 1), got " + text(config.dropConnectRate));
  const std::size_t laterExpansion =
      config.expandRatio ? config.expandRatio : (config.groupSize > 1 ? 4 : 6);

  NetworkSpec net;
  net.stemChannels = roundFilters(kStemChannels, width);
  net.stemStride = config.smallImageStem ? 1 : 2;
  net.headChannels = roundFilters(kHeadChannels, width);
  net.dropoutRate = c.dropout;
  net.resolution = c.resolution;
  std::size_t total = 0;
  for (const auto &s : kB0Stages)
    total += roundRepeats(s.repeats, depth);
  std::size_t in = net.stemChannels, index = 0;
  for (std::size_t stage = 0; stage < std::size(kB0Stages); ++stage) {
    const StageSpec &s = kB0Stages[stage];
    const std::size_t out = roundFilters(s.channels, width);
    const std::size_t repeats = roundRepeats(s.repeats, depth);
    for (std::size_t r = 0; r < repeats; ++r, ++index) {
      BlockSpec b;
      b.name = "stage" + std::to_string(stage + 1) + "/block" + std::to_string(r + 1);
      b.inChannels = in;
      b.outChannels = out;
      b.expandRatio = stage == 0 ? s.expand : laterExpansion;
      b.expandedChannels = in * b.expandRatio;
      b.kernel = s.kernel;
      b.stride = r == 0 ? s.stride : 1;
      if (b.expandedChannels % config.groupSize != 0)
        throw apps::cli_error("--group-size " + std::to_string(config.groupSize) +
                              " does not divide the " + std::to_string(b.expandedChannels) +
                              " channels of " + b.name + "'s " + std::to_string(b.kernel) + "x" +
                              std::to_string(b.kernel) + " convolution");
      b.groups = b.expandedChannels / config.groupSize;
      b.squeezeChannels = std::max<std::size_t>(1, in / 4);
      // Stochastic depth grows linearly with depth, to the full rate at the last block.
      b.dropConnectRate = config.dropConnectRate * double(index) / double(total);
      b.residual = b.stride == 1 && in == out;
      net.blocks.push_back(b);
      in = out;
    }
  }
  return net;
}

void validate(const EfficientNetConfig &config, std::size_t imageSize) {
  resolve(config);
  if (imageSize < kMinImageSize)
    throw apps::cli_error("--image-size " + std::to_string(imageSize) + " is below the " +
                          std::to_string(kMinImageSize) + " pixels of Fashion-MNIST images");
}

std::map<std::string, std::string> describe(const EfficientNetConfig &config) {
  return {{"variant", config.variant},
          {"width", text(config.widthMultiplier)},
          {"depth_multiplier", text(config.depthMultiplier)},
          {"group_size", std::to_string(config.groupSize)},
          {"expand_ratio", std::to_string(config.expandRatio)},
          {"norm", normName(config.norm)},
          {"stem", config.smallImageStem ? "small" : "imagenet"},
          {"drop_connect", text(config.dropConnectRate)},
          {"classes", std::to_string(config.numClasses)}};
}

} // namespace tessera::efficientnet
