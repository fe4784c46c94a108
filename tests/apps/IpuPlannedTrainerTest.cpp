// --estimate-ipu's trainer: a graph planned for an IPU (planObjective ipuCycles, every layer on
// the whole IPU) computes what the host-planned graph computes — plans only reorder sums — and
// prices its training pass and update with the IPU cost model.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include <tessera/apps/ClassifierTrainer.hpp>
#include <tessera/apps/layers/Conv2d.hpp>
#include <tessera/apps/layers/Dense.hpp>
#include <tessera/apps/layers/Sequential.hpp>
#include <tessera/apps/layers/Simple.hpp>

#include "replicas/ReplicatedTraining.hpp"

namespace tessera::apps {
namespace {

LayerPtr smallConvNet() {
  auto net = std::make_unique<Sequential>("convnet");
  net->add(std::make_unique<Conv2d>("conv", Conv2dOptions{1, 8, 3, 2, 1, false, 1}));
  net->add(std::make_unique<ReLU>("relu"));
  net->add(std::make_unique<Flatten>("flatten"));
  net->add(std::make_unique<Dense>("fc", 8 * 14 * 14, 10));
  return net;
}

ClassifierSpec spec(bool forIpu) {
  ClassifierSpec s;
  s.modelName = "convnet";
  s.tiles = 64;
  s.planForIpu = forIpu;
  return s;
}

TEST(IpuPlannedTrainer, ComputesWhatTheHostPlannedGraphComputes) {
  TrainingOptions o;
  o.batchSize = 8;
  std::ostringstream log;
  ClassifierTrainer host(smallConvNet(), spec(false), o, log);
  ClassifierTrainer ipu(smallConvNet(), spec(true), o, log);
  host.initialise();
  ipu.initialise();
  const Batch b = testing::syntheticBatch(8, 0);
  const double hostLoss = host.lossAndGradients(b).loss;
  const double ipuLoss = ipu.lossAndGradients(b).loss;
  EXPECT_NEAR(ipuLoss, hostLoss, 1e-5 * std::abs(hostLoss));
  for (const auto &name : host.parameterNames()) {
    const auto h = host.readGradient(name), i = ipu.readGradient(name);
    ASSERT_EQ(h.size(), i.size()) << name;
    double worst = 0, scale = 1e-6;
    for (std::size_t k = 0; k < h.size(); ++k) {
      worst = std::max(worst, double(std::abs(h[k] - i[k])));
      scale = std::max(scale, double(std::abs(h[k])));
    }
    EXPECT_LE(worst, 1e-4 * scale) << name;
  }
}

TEST(IpuPlannedTrainer, PricesThePassAndTheUpdate) {
  TrainingOptions o;
  o.batchSize = 8;
  std::ostringstream log;
  ClassifierTrainer ipu(smallConvNet(), spec(true), o, log);
  const IpuStepCycles c = ipu.estimateIpuStepCycles();
  EXPECT_GT(c.forwardBackward, 0u);
  EXPECT_GT(c.update, 0u);
  // conv 8x1x3x3 weights, fc 1568x10 weights and 10 biases
  EXPECT_EQ(c.parameterElements, 72u + 15680u + 10u);
}

} // namespace
} // namespace tessera::apps
