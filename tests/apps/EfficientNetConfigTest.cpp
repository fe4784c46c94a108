// EfficientNet's compound scaling against the published B0–B4 shapes (channels per stage, block
// counts), the stochastic-depth schedule, the G16 variant, and the bad configurations.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <tessera/apps/Errors.hpp>

#include "EfficientNetConfig.hpp"

namespace tessera::efficientnet {
namespace {

/// Output channels of the last block of each stage, and the number of blocks per stage.
std::pair<std::vector<std::size_t>, std::vector<std::size_t>> stages(const NetworkSpec &net) {
  std::vector<std::size_t> channels, counts;
  std::string stage;
  for (const auto &b : net.blocks) {
    const std::string s = b.name.substr(0, b.name.find('/'));
    if (s != stage) {
      channels.push_back(0);
      counts.push_back(0);
      stage = s;
    }
    channels.back() = b.outChannels;
    ++counts.back();
  }
  return {channels, counts};
}

EfficientNetConfig variant(const std::string &name) {
  EfficientNetConfig c;
  c.variant = name;
  return c;
}

TEST(EfficientNetConfig, B0IsThePapersBaseline) {
  const NetworkSpec net = resolve(variant("b0"));
  EXPECT_EQ(net.stemChannels, 32u);
  EXPECT_EQ(net.headChannels, 1280u);
  const auto [channels, counts] = stages(net);
  EXPECT_EQ(channels, (std::vector<std::size_t>{16, 24, 40, 80, 112, 192, 320}));
  EXPECT_EQ(counts, (std::vector<std::size_t>{1, 2, 2, 3, 3, 4, 1}));
  const BlockSpec &first = net.blocks.front();
  EXPECT_EQ(first.expandRatio, 1u);
  EXPECT_EQ(first.groups, 32u); // depthwise over the stem's 32 channels
  EXPECT_EQ(first.squeezeChannels, 8u);
  const BlockSpec &second = net.blocks[1];
  EXPECT_EQ(second.expandedChannels, 96u);
  EXPECT_EQ(second.stride, 2u);
  EXPECT_FALSE(second.residual);
  EXPECT_TRUE(net.blocks[2].residual);
  EXPECT_EQ(net.dropoutRate, 0.2);
}

TEST(EfficientNetConfig, CompoundScalingMatchesB2AndB4) {
  // Published shapes (e.g. torchvision's efficientnet_b2 / _b4).
  const NetworkSpec b2 = resolve(variant("b2"));
  EXPECT_EQ(b2.stemChannels, 32u);
  EXPECT_EQ(b2.headChannels, 1408u);
  EXPECT_EQ(stages(b2).first, (std::vector<std::size_t>{16, 24, 48, 88, 120, 208, 352}));
  EXPECT_EQ(stages(b2).second, (std::vector<std::size_t>{2, 3, 3, 4, 4, 5, 2}));
  const NetworkSpec b4 = resolve(variant("b4"));
  EXPECT_EQ(b4.stemChannels, 48u);
  EXPECT_EQ(b4.headChannels, 1792u);
  EXPECT_EQ(stages(b4).first, (std::vector<std::size_t>{24, 32, 56, 112, 160, 272, 448}));
  EXPECT_EQ(b4.blocks.size(), 32u);
  EXPECT_EQ(b4.dropoutRate, 0.4);
}

TEST(EfficientNetConfig, RoundingRules) {
  EXPECT_EQ(roundFilters(32, 1.0), 32u);
  EXPECT_EQ(roundFilters(32, 1.4), 48u);   // 44.8 → nearest multiple of 8
  EXPECT_EQ(roundFilters(24, 1.4), 32u);   // 33.6 → 32 (within 10 %)
  EXPECT_EQ(roundFilters(16, 0.25), 8u);   // never below 8
  EXPECT_EQ(roundFilters(100, 1.0), 104u); // to the nearest multiple of 8, ties up
  EXPECT_EQ(roundRepeats(3, 1.1), 4u);
  EXPECT_EQ(roundRepeats(1, 1.0), 1u);
}

TEST(EfficientNetConfig, StochasticDepthGrowsLinearlyToTheFullRate) {
  EfficientNetConfig c = variant("b0");
  c.dropConnectRate = 0.2;
  const NetworkSpec net = resolve(c);
  EXPECT_EQ(net.blocks.front().dropConnectRate, 0.0);
  for (std::size_t i = 0; i < net.blocks.size(); ++i)
    EXPECT_DOUBLE_EQ(net.blocks[i].dropConnectRate, 0.2 * double(i) / 16.0);
}

TEST(EfficientNetConfig, G16GroupsSixteenChannelsWithExpansionFour) {
  EfficientNetConfig c = variant("b0");
  c.groupSize = 16;
  const NetworkSpec net = resolve(c);
  for (const auto &b : net.blocks) {
    EXPECT_EQ(b.expandedChannels / b.groups, 16u) << b.name;
    if (b.name.rfind("stage1/", 0) != 0) {
      EXPECT_EQ(b.expandRatio, 4u) << b.name;
    }
  }
  c.expandRatio = 6;
  EXPECT_EQ(resolve(c).blocks[1].expandRatio, 6u);
}

TEST(EfficientNetConfig, WidthAndDepthOverrides) {
  EfficientNetConfig c = variant("b0");
  c.widthMultiplier = 0.5;
  c.depthMultiplier = 2.0;
  const NetworkSpec net = resolve(c);
  EXPECT_EQ(net.stemChannels, 16u);
  EXPECT_EQ(net.blocks.size(), 32u);
}

std::string errorOf(const EfficientNetConfig &c) {
  try {
    resolve(c);
  } catch (const apps::cli_error &e) {
    return e.what();
  }
  ADD_FAILURE() << "no cli_error";
  return "";
}

TEST(EfficientNetConfig, BadConfigurationsNameTheCulprit) {
  const std::string unknown = errorOf(variant("b9"));
  EXPECT_NE(unknown.find("--variant 'b9'"), std::string::npos) << unknown;
  EXPECT_NE(errorOf(variant("B0")).find("did you mean"), std::string::npos);
  EfficientNetConfig c = variant("b0");
  c.groupSize = 7;
  const std::string groups = errorOf(c);
  EXPECT_NE(groups.find("--group-size 7"), std::string::npos) << groups;
  EXPECT_NE(groups.find("stage1/block1"), std::string::npos) << groups;
  c.groupSize = 0;
  EXPECT_NE(errorOf(c).find("--group-size"), std::string::npos);
  c = variant("b0");
  c.widthMultiplier = -1;
  EXPECT_NE(errorOf(c).find("--width"), std::string::npos);
  c = variant("b0");
  c.dropConnectRate = 1.0;
  EXPECT_NE(errorOf(c).find("--drop-connect"), std::string::npos);
}

} // namespace
} // namespace tessera::efficientnet
