#include "ResNet.hpp"

#include <cmath>
#include <sstream>
#include <vector>

#include <tessera/apps/Errors.hpp>
#include <tessera/apps/layers/BatchNorm.hpp>
#include <tessera/apps/layers/Conv2d.hpp>
#include <tessera/apps/layers/Dense.hpp>
#include <tessera/apps/layers/Sequential.hpp>
#include <tessera/apps/layers/Simple.hpp>

namespace tessera::resnet {
namespace {

using apps::LayerPtr;

struct Stage {
  unsigned blocks;
  std::size_t channels; // bottleneck width (before expansion)
};

bool usesBottlenecks(unsigned depth) { return depth >= 50; }

std::vector<unsigned> blocksPerStage(unsigned depth) {
  switch (depth) {
  case 18:
    return {2, 2, 2, 2};
  case 34:
  case 50:
    return {3, 4, 6, 3};
  case 101:
    return {3, 4, 23, 3};
  default:
    throw apps::cli_error("--depth " + std::to_string(depth) +
                          " is not a ResNet depth; use 18, 34, 50 or 101");
  }
}

/// conv → batch norm (→ ReLU), the unit every block is made of.
void convBn(apps::Sequential &seq, const std::string &name, std::size_t in, std::size_t out,
            unsigned kernel, unsigned stride, bool relu) {
  seq.add(std::make_unique<apps::Conv2d>(
      name + "/conv", apps::Conv2dOptions{in, out, kernel, stride, kernel / 2, false}));
  seq.add(std::make_unique<apps::BatchNorm>(name + "/bn", out));
  if (relu)
    seq.add(std::make_unique<apps::ReLU>(name + "/relu"));
}

LayerPtr block(const std::string &name, std::size_t in, std::size_t width, std::size_t out,
               unsigned stride, bool bottleneck) {
  auto main = std::make_unique<apps::Sequential>(name + "/main");
  if (bottleneck) {
    convBn(*main, name + "/a", in, width, 1, 1, true);
    convBn(*main, name + "/b", width, width, 3, stride, true); // v1.5: stride on the 3×3
    convBn(*main, name + "/c", width, out, 1, 1, false);
  } else {
    convBn(*main, name + "/a", in, out, 3, stride, true);
    convBn(*main, name + "/b", out, out, 3, 1, false);
  }
  LayerPtr shortcut;
  if (stride != 1 || in != out) {
    auto s = std::make_unique<apps::Sequential>(name + "/shortcut");
    convBn(*s, name + "/shortcut", in, out, 1, stride, false);
    shortcut = std::move(s);
  }
  return std::make_unique<apps::Residual>(name, std::move(main), std::move(shortcut));
}

} // namespace

void validate(const ResNetConfig &config) {
  blocksPerStage(config.depth);
  if (!(config.width > 0) || !std::isfinite(config.width))
    throw apps::cli_error("--width must be a positive number, got " + std::to_string(config.width));
}

std::size_t scaledChannels(std::size_t channels, double width) {
  return std::max<std::size_t>(4, std::size_t(std::lround(double(channels) * width)));
}

apps::LayerPtr buildResNet(const ResNetConfig &config) {
  validate(config);
  const bool bottleneck = usesBottlenecks(config.depth);
  const std::size_t expansion = bottleneck ? 4 : 1;
  auto net = std::make_unique<apps::Sequential>("resnet" + std::to_string(config.depth));
  const std::size_t stemOut = scaledChannels(64, config.width);
  if (config.stem == Stem::Small) {
    convBn(*net, "stem", config.inputChannels, stemOut, 3, 1, true);
  } else {
    convBn(*net, "stem", config.inputChannels, stemOut, 7, 2, true);
    net->add(std::make_unique<apps::MaxPool2d>("stem/pool", 3, 2, 1));
  }
  std::size_t channels = stemOut;
  const auto blocks = blocksPerStage(config.depth);
  const std::size_t baseWidths[] = {64, 128, 256, 512};
  for (std::size_t s = 0; s < blocks.size(); ++s) {
    const std::size_t width = scaledChannels(baseWidths[s], config.width);
    const std::size_t out = width * expansion;
    for (unsigned b = 0; b < blocks[s]; ++b) {
      const unsigned stride = (s > 0 && b == 0) ? 2 : 1;
      net->add(block("stage" + std::to_string(s + 1) + "/block" + std::to_string(b + 1), channels,
                     width, out, stride, bottleneck));
      channels = out;
    }
  }
  net->add(std::make_unique<apps::GlobalAvgPool>("pool"));
  net->add(std::make_unique<apps::Dense>("fc", channels, config.numClasses));
  return net;
}

std::map<std::string, std::string> describe(const ResNetConfig &config) {
  std::ostringstream width;
  width << config.width;
  return {{"depth", std::to_string(config.depth)},
          {"width", width.str()},
          {"stem", config.stem == Stem::Small ? "small" : "imagenet"},
          {"classes", std::to_string(config.numClasses)}};
}

} // namespace tessera::resnet
