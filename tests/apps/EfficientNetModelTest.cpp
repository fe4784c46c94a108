// EfficientNet put together. One MBConv block (depthwise and grouped) forward and backward
// against a double-precision host reference composed of the per-layer references (1×1
// expansion, batch norm with batch statistics, swish, grouped k×k convolution, squeeze-and-
// excitation, projection, residual add), its gradients against central finite differences of
// L = Σ gradOut ⊙ out; the whole network trained a few steps with 1 and 2 host threads ending
// bit-identical; and the configuration errors a user can make (an unknown --norm, a checkpoint
// of another configuration, a too-small --image-size) named.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <tessera/apps/Checkpoint.hpp>
#include <tessera/apps/ClassifierTrainer.hpp>
#include <tessera/apps/Errors.hpp>
#include <tessera/apps/TrainingData.hpp>

#include "EfficientNet.hpp"
#include "LayerReferences.hpp"
#include "LayerRig.hpp"
#include "TempDir.hpp"

namespace tessera::efficientnet {
namespace {

using namespace apps::test;
using apps::Mode;

// ---- One MBConv block --------------------------------------------------------------------------

/// An MBConv block of 8 channels expanded 4× to 32, 3×3 with `groups` groups, squeeze to 2,
/// residual, no stochastic depth (so the block is deterministic).
BlockSpec smallBlock(std::size_t groups) {
  BlockSpec b;
  b.name = "blk";
  b.inChannels = 8;
  b.outChannels = 8;
  b.expandRatio = 4;
  b.expandedChannels = 32;
  b.kernel = 3;
  b.stride = 1;
  b.groups = groups;
  b.squeezeChannels = 2;
  b.dropConnectRate = 0;
  b.residual = true;
  return b;
}

/// The block's output for input x [batch][8][side][side], composed of the layer references.
Vec referenceMBConv(const BlockSpec &b, std::size_t batch, std::size_t side,
                    const std::map<std::string, Vec> &p, const Vec &x) {
  const std::size_t E = b.expandedChannels;
  auto convNorm = [&](const std::string &unit, const Vec &in, std::size_t inChannels,
                      std::size_t outChannels, unsigned kernel, std::size_t groups, bool act) {
    const ConvCase conv{unit.c_str(), batch,  inChannels, outChannels, groups, side,
                        side,         kernel, 1,          kernel / 2,  false};
    const std::string n = b.name + "/" + unit;
    const Vec y = referenceBatchNorm(referenceConv(conv, in, p.at(n + "/conv/weights"), {}), batch,
                                     outChannels, p.at(n + "/bn/gamma"), p.at(n + "/bn/beta"));
    return act ? referenceSwish(y) : y;
  };
  const Vec expanded = convNorm("expand", x, b.inChannels, E, 1, 1, true);
  const Vec spatial = convNorm("spatial", expanded, E, E, b.kernel, b.groups, true);
  const SeShape se{batch, E, side, side, b.squeezeChannels};
  const Vec excited = referenceSqueezeExcite(se, p, spatial, b.name + "/se");
  const Vec projected = convNorm("project", excited, E, b.outChannels, 1, 1, false);
  return referenceAdd(projected, x);
}

/// Indices to check by finite differences: a few spread over the tensor plus the largest
/// gradient (every index of a small tensor).
std::vector<std::size_t> gradientPicks(const Vec &grad) {
  std::vector<std::size_t> picks;
  if (grad.size() <= 64) {
    for (std::size_t i = 0; i < grad.size(); ++i)
      picks.push_back(i);
    return picks;
  }
  for (std::size_t k = 0; k < 10; ++k)
    picks.push_back(k * (grad.size() - 1) / 9);
  picks.push_back(
      std::size_t(std::max_element(grad.begin(), grad.end(),
                                   [](double a, double c) { return std::abs(a) < std::abs(c); }) -
                  grad.begin()));
  return picks;
}

class MBConvBlock : public ::testing::TestWithParam<std::size_t> {};

TEST_P(MBConvBlock, ForwardAndGradientsMatchTheComposedLayerReferences) {
  const BlockSpec block = smallBlock(GetParam());
  const std::size_t batch = 2, side = 5;
  const std::vector<std::size_t> shape{batch, block.inChannels, side, side};
  LayerRig rig;
  apps::LayerPtr layer = buildMBConv(block, Norm::Batch);
  poplar::Tensor x = rig.input("x", shape), gradOut = rig.input("gradOut", shape);
  poplar::program::Sequence prog;
  rig.output("y", layer->forward(rig.ctx(), x, Mode::Training, prog));
  rig.output("gradIn", layer->backward(rig.ctx(), gradOut, true, prog));
  rig.exposeParameters();
  rig.load({prog});

  // Random parameters (γ around 1, every β and bias non-zero) so every term is exercised.
  std::map<std::string, Vec> params;
  unsigned seed = 100;
  for (const auto &p : rig.ctx().parameters()) {
    const bool gamma = p->name.ends_with("/gamma");
    params[p->name] =
        randomValues(p->value.numElements(), seed++, gamma ? 0.5 : -1.0, gamma ? 1.5 : 1.0);
    rig.write(p->name, params[p->name]);
  }
  // expand, spatial, project: conv weights, γ, β; the SE's two weights and two biases.
  ASSERT_EQ(params.size(), 13u);
  EXPECT_EQ(rig.ctx().parameters()[3]->value.shape(),
            (std::vector<std::size_t>{block.groups, 32 / block.groups, 32 / block.groups, 3, 3}));
  Vec xs = randomValues(x.numElements(), 1, -2.0, 2.0);
  const Vec gys = randomValues(x.numElements(), 2);
  rig.write("x", xs);
  rig.write("gradOut", gys);
  rig.run(1);

  const Vec want = referenceMBConv(block, batch, side, params, xs);
  expectClose(rig.read("y"), want, 1e-4, "y");
  auto loss = [&] { return dot(referenceMBConv(block, batch, side, params, xs), gys); };
  expectClose(rig.read("gradIn"), finiteDifference(xs, loss), 1e-3, "gradIn");
  for (auto &[name, value] : params) {
    const Vec grad = rig.read(name + "/grad");
    ASSERT_EQ(grad.size(), value.size()) << name;
    for (std::size_t i : gradientPicks(grad)) {
      const double numeric = finiteDifferenceAt(value, i, loss);
      ASSERT_NEAR(grad[i], numeric, 1e-3 * (1 + std::abs(numeric))) << name << "[" << i << "]";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EfficientNetModel, MBConvBlock, ::testing::Values(32, 2),
                         [](const auto &info) {
                           return info.param == 32 ? std::string("Depthwise")
                                                   : std::string("Grouped");
                         });

// ---- The whole network -------------------------------------------------------------------------

/// B0 at a quarter width and one block per stage (7 blocks, 8–80 channels), built in seconds;
/// stochastic depth and dropout stay on so their masks are part of what must match.
EfficientNetConfig tinyConfig() {
  EfficientNetConfig c;
  c.variant = "b0";
  c.widthMultiplier = 0.25;
  c.depthMultiplier = 0.1;
  return c;
}

constexpr std::size_t kImageSize = 28;

/// The spec the efficientnet program makes for `config` (model configuration = describe() plus
/// the image size).
apps::ClassifierSpec specOf(const EfficientNetConfig &config) {
  apps::ClassifierSpec spec;
  spec.modelName = "efficientnet";
  spec.modelConfig = describe(config);
  spec.modelConfig["image-size"] = std::to_string(kImageSize);
  spec.imageSize = kImageSize;
  spec.numClasses = config.numClasses;
  spec.tiles = 0; // a whole Mk2 IPU
  return spec;
}

apps::TrainingOptions tinyOptions(unsigned hostThreads) {
  apps::TrainingOptions o;
  o.batchSize = 4;
  o.learningRate = 0.05;
  o.lrSchedule = apps::LrSchedule::Constant;
  o.syntheticData = true;
  o.trainSubset = 64;
  o.validation = false;
  o.hostThreads = hostThreads;
  return o;
}

/// Every parameter and state tensor (running statistics, velocities) and the random state after
/// `steps` training steps of the tiny network with `hostThreads` host threads.
apps::CheckpointState trainTiny(unsigned hostThreads, unsigned steps) {
  const apps::TrainingOptions o = tinyOptions(hostThreads);
  std::ostringstream log;
  apps::ClassifierTrainer trainer(buildEfficientNet(tinyConfig()), specOf(tinyConfig()), o, log);
  trainer.initialise();
  apps::DataLoader loader(apps::loadTrainingImages(o), apps::trainingLoaderOptions(o, kImageSize));
  for (unsigned s = 0; s < steps; ++s) {
    const apps::StepResult r = trainer.trainStep(loader.next(), o.learningRate);
    EXPECT_TRUE(std::isfinite(r.loss)) << "step " << s << "\n" << log.str();
  }
  return trainer.snapshot(steps, loader.position());
}

TEST(EfficientNetModel, TrainingIsBitIdenticalWithOneAndTwoHostThreads) {
  const apps::CheckpointState one = trainTiny(1, 4), two = trainTiny(2, 4);
  ASSERT_EQ(one.tensors.size(), two.tensors.size());
  ASSERT_GT(one.tensors.size(), 40u) << "7 blocks of about 13 parameters each, and more";
  for (std::size_t i = 0; i < one.tensors.size(); ++i) {
    ASSERT_EQ(one.tensors[i].name, two.tensors[i].name);
    EXPECT_EQ(one.tensors[i].data, two.tensors[i].data) << one.tensors[i].name;
  }
  ASSERT_EQ(one.optimiserState.size(), two.optimiserState.size());
  for (std::size_t i = 0; i < one.optimiserState.size(); ++i)
    EXPECT_EQ(one.optimiserState[i].data, two.optimiserState[i].data) << one.optimiserState[i].name;
  EXPECT_EQ(one.rngState, two.rngState);
  // The steps did train: some weight moved away from its initial value.
  const apps::CheckpointState initial = trainTiny(1, 0);
  EXPECT_NE(initial.tensors.front().data, one.tensors.front().data);
}

// ---- Bad input ---------------------------------------------------------------------------------

std::string cliErrorOf(const std::function<void()> &f) {
  try {
    f();
  } catch (const apps::cli_error &e) {
    return e.what();
  }
  ADD_FAILURE() << "no cli_error";
  return "";
}

TEST(EfficientNetModel, NormNamesRoundTripAndAnUnknownOneIsNamedWithASuggestion) {
  for (Norm n : {Norm::Batch, Norm::Group, Norm::LayerProxy})
    EXPECT_EQ(normByName(normName(n)), n) << normName(n);
  EXPECT_EQ(normName(Norm::LayerProxy), "layer-proxy");
  EfficientNetConfig c = tinyConfig();
  c.norm = Norm::Group;
  EXPECT_EQ(describe(c).at("norm"), "group");

  const std::string typo = cliErrorOf([] { normByName("layer-prox"); });
  EXPECT_NE(typo.find("--norm 'layer-prox'"), std::string::npos) << typo;
  EXPECT_NE(typo.find("batch, group, layer-proxy"), std::string::npos) << typo;
  EXPECT_NE(typo.find("did you mean 'layer-proxy'?"), std::string::npos) << typo;
  const std::string far = cliErrorOf([] { normByName("instance"); });
  EXPECT_NE(far.find("--norm 'instance'"), std::string::npos) << far;
  EXPECT_EQ(far.find("did you mean"), std::string::npos) << far;
}

TEST(EfficientNetModel, ImageSizeBelowFashionMnistsIsNamed) {
  EXPECT_NO_THROW(validate(tinyConfig(), 28));
  EXPECT_NO_THROW(validate(tinyConfig(), 64));
  const std::string small = cliErrorOf([] { validate(tinyConfig(), 27); });
  EXPECT_NE(small.find("--image-size 27"), std::string::npos) << small;
  EXPECT_NE(small.find("28"), std::string::npos) << small;
  // validate() also runs resolve()'s checks.
  EfficientNetConfig c = tinyConfig();
  c.groupSize = 3;
  EXPECT_NE(cliErrorOf([&] { validate(c, 32); }).find("--group-size 3"), std::string::npos);
}

TEST(EfficientNetModel, CheckpointOfAnotherConfigurationIsRefusedNamingTheSetting) {
  apps::testing::TempDir dir;
  apps::TrainingOptions o = tinyOptions(2);
  o.epochs = 1;
  o.trainSubset = 4; // one step
  o.checkpointDir = dir.path().string();
  std::ostringstream log;
  const EfficientNetConfig depthwise = tinyConfig();
  {
    apps::ClassifierTrainer trainer(buildEfficientNet(depthwise), specOf(depthwise), o, log);
    EXPECT_EQ(trainer.run().steps, 1u);
  }
  ASSERT_TRUE(apps::latestCheckpoint(dir.path()).has_value());
  EfficientNetConfig grouped = tinyConfig();
  grouped.groupSize = 8; // 8 channels per group (the quarter-width stem has only 8)
  o.resume = true;
  apps::ClassifierTrainer trainer(buildEfficientNet(grouped), specOf(grouped), o, log);
  try {
    trainer.run();
    FAIL() << "resumed a depthwise checkpoint with --group-size 8";
  } catch (const apps::checkpoint_error &e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'group_size' is '1' in the checkpoint but '8'"), std::string::npos)
        << what;
  }
}

} // namespace
} // namespace tessera::efficientnet
