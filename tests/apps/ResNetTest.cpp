// The ResNet trainer: a narrow ResNet learns Fashion-MNIST, the whole network's gradients match
// finite differences, a stopped run resumes bit-exactly, and bad configurations are named.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include <poplar/exceptions.hpp>

#include <tessera/apps/Checkpoint.hpp>
#include <tessera/apps/ClassifierTrainer.hpp>
#include <tessera/apps/Errors.hpp>
#include <tessera/apps/TrainingData.hpp>

#include "ResNet.hpp"
#include "TempDir.hpp"

namespace tessera::apps {
namespace {

ClassifierSpec specFor(const resnet::ResNetConfig &net, unsigned tiles, unsigned ipus = 1) {
  ClassifierSpec spec;
  spec.ipus = ipus;
  spec.modelName = "resnet" + std::to_string(net.depth);
  spec.modelConfig = resnet::describe(net);
  spec.tiles = tiles;
  return spec;
}

TrainingOptions baseOptions() {
  TrainingOptions o;
  o.batchSize = 16;
  o.learningRate = 0.05;
  o.momentum = 0.9;
  o.weightDecay = 5e-5;
  o.warmupEpochs = 0.1;
  o.hostThreads = 2;
  return o;
}

TEST(ResNetTrainer, NarrowResNetLearnsFashionMnistSubset) {
  resnet::ResNetConfig net;
  net.depth = 18;
  net.width = 0.125;
  TrainingOptions o = baseOptions();
  o.epochs = 2;
  o.trainSubset = 2400; // 150 steps per epoch, 300 in all
  o.validation = true;
  std::ostringstream log;
  ClassifierTrainer trainer(resnet::buildResNet(net), specFor(net, 0, 2), o, log);
  DataLoader loader(loadTrainingImages(o), trainingLoaderOptions(o, 28));
  trainer.initialise();
  const double initialLoss = trainer.lossAndGradients(loader.makeBatch({0, 0})).loss;
  const TrainingResult r = trainer.run();
  EXPECT_EQ(r.steps, 300u);
  EXPECT_LT(r.finalLoss, 0.5 * initialLoss) << log.str();
  EXPECT_GT(r.finalAccuracy, 0.7) << log.str();
}

TEST(ResNetTrainer, WholeNetworkGradientsMatchFiniteDifferences) {
  resnet::ResNetConfig net;
  net.depth = 50; // bottlenecks, strided shortcuts, batch norm, pooling and the dense head
  net.width = 0.0625;
  TrainingOptions o = baseOptions();
  o.batchSize = 4;
  o.syntheticData = true;
  o.trainSubset = 16;
  std::ostringstream log;
  ClassifierTrainer trainer(resnet::buildResNet(net), specFor(net, 0), o, log);
  trainer.initialise();
  DataLoader loader(loadTrainingImages(o), trainingLoaderOptions(o, 28));
  const Batch batch = loader.makeBatch({0, 0});
  trainer.lossAndGradients(batch);
  const std::vector<std::string> names = {"stem/conv/weights",
                                          "stage1/block1/a/conv/weights",
                                          "stage2/block1/b/conv/weights",
                                          "stage3/block1/shortcut/conv/weights",
                                          "stage4/block3/c/bn/gamma",
                                          "fc/weights",
                                          "fc/bias"};
  // Per tensor, the derivative of the loss along its gradient's direction u = g / |g| must be
  // |g|: one finite difference over the whole tensor, robust to the ReLU kinks and float32
  // rounding that make single-element differences noisy in a 50-layer network.
  for (const std::string &name : names) {
    const std::vector<float> grad = trainer.readGradient(name);
    const std::vector<float> w0 = trainer.readParameter(name);
    double gradNorm = 0;
    for (std::size_t i = 0; i < grad.size(); ++i) {
      gradNorm += double(grad[i]) * grad[i];
    }
    gradNorm = std::sqrt(gradNorm);
    ASSERT_GT(gradNorm, 0.0) << name;
    // A step that changes the loss by about 2e-3: far above float32 rounding of the loss, small
    // enough for the first-order term to dominate.
    const double h = 2e-3 / gradNorm;
    auto lossAt = [&](double step) {
      std::vector<float> w(w0.size());
      for (std::size_t i = 0; i < w.size(); ++i)
        w[i] = float(w0[i] + step * grad[i] / gradNorm);
      trainer.writeParameter(name, w);
      return trainer.lossAndGradients(batch).loss;
    };
    const double numeric = (lossAt(h) - lossAt(-h)) / (2 * h);
    trainer.writeParameter(name, w0);
    EXPECT_NEAR(numeric, gradNorm, 0.1 * gradNorm) << name;
    trainer.lossAndGradients(batch);
  }
}

std::map<std::string, std::vector<float>> latestTensors(const std::filesystem::path &dir) {
  CheckpointState s = readCheckpoint(latestCheckpoint(dir).value());
  std::map<std::string, std::vector<float>> out;
  for (const auto &t : s.tensors)
    out[t.name] = t.data;
  for (const auto &t : s.optimiserState)
    out["state:" + t.name] = t.data;
  return out;
}

TEST(ResNetTrainer, StoppedRunResumesWithBitIdenticalWeights) {
  resnet::ResNetConfig net;
  net.depth = 18;
  net.width = 0.0625;
  TrainingOptions o = baseOptions();
  o.batchSize = 8;
  o.epochs = 2;
  o.trainSubset = 48; // 6 steps per epoch
  o.validation = false;
  testing::TempDir whole, stopped;
  std::ostringstream log;
  {
    TrainingOptions a = o;
    a.checkpointDir = whole.path().string();
    ClassifierTrainer(resnet::buildResNet(net), specFor(net, 0), a, log).run();
  }
  {
    TrainingOptions b = o;
    b.checkpointDir = stopped.path().string();
    ClassifierSpec spec = specFor(net, 0);
    spec.stopAfterSteps = 4;
    EXPECT_TRUE(ClassifierTrainer(resnet::buildResNet(net), spec, b, log).run().stoppedEarly);
  }
  {
    TrainingOptions c = o;
    c.checkpointDir = stopped.path().string();
    c.resume = true;
    // Resumed with more host threads: the bits must not depend on them.
    c.hostThreads = 1;
    EXPECT_EQ(ClassifierTrainer(resnet::buildResNet(net), specFor(net, 0), c, log).run().steps,
              12u);
  }
  const auto a = latestTensors(whole.path()), b = latestTensors(stopped.path());
  ASSERT_EQ(a.size(), b.size());
  for (const auto &[name, values] : a)
    EXPECT_EQ(values, b.at(name)) << name;
}

TEST(ResNetTrainer, BatchTooLargeForTileMemoryNamesTheTile) {
  resnet::ResNetConfig net;
  net.depth = 18;
  net.width = 0.0625;
  TrainingOptions o = baseOptions();
  o.batchSize = 64;
  std::ostringstream log;
  try {
    ClassifierTrainer trainer(resnet::buildResNet(net), specFor(net, 2), o, log);
    FAIL() << "a batch of 64 on 2 tiles cannot fit";
  } catch (const poplar::poplar_error &e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("tile"), std::string::npos) << what;
  }
}

TEST(ResNetConfig, NonsenseValuesNameTheFlag) {
  resnet::ResNetConfig bad;
  bad.depth = 42;
  try {
    resnet::validate(bad);
    FAIL();
  } catch (const cli_error &e) {
    EXPECT_NE(std::string(e.what()).find("--depth 42"), std::string::npos) << e.what();
  }
  bad.depth = 50;
  bad.width = 0;
  EXPECT_THROW(resnet::validate(bad), cli_error);
  EXPECT_EQ(resnet::scaledChannels(64, 0.125), 8u);
  EXPECT_EQ(resnet::scaledChannels(64, 0.01), 4u);
}

} // namespace
} // namespace tessera::apps
