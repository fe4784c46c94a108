// Gradient accumulation: micro-batch gradients summed into FLOAT accumulators that the
// optimiser then reads in place of the raw gradients.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include <tessera/apps/AdaptiveOptimisers.hpp>
#include <tessera/apps/Errors.hpp>
#include <tessera/apps/GradientAccumulator.hpp>

#include "AdaptiveReference.hpp"
#include "OptimiserRig.hpp"

namespace tessera::apps {
namespace {

using test::HostParameter;
using test::OptimiserRig;
using test::roundToHalf;

TEST(GradientAccumulator, SwapsAccumulatorsIntoParameters) {
  OptimiserRig rig(2);
  Parameter &w = rig.addParameter("w", 6, poplar::FLOAT, true);
  Parameter &h = rig.addParameter("h", 4, poplar::HALF, false);
  const poplar::Tensor rawW = w.gradient, rawH = h.gradient;
  GradientAccumulator accumulator(rig.ctx());
  ASSERT_EQ(accumulator.size(), 2u);
  EXPECT_EQ(accumulator.rawGradient(0), rawW);
  EXPECT_EQ(accumulator.rawGradient(1), rawH);
  EXPECT_EQ(w.gradient, accumulator.accumulated(0));
  EXPECT_EQ(h.gradient, accumulator.accumulated(1));
  EXPECT_EQ(h.gradient.elementType(), poplar::FLOAT); // accumulates in FLOAT
  EXPECT_EQ(h.gradient.shape(), h.value.shape());
  ASSERT_EQ(rig.ctx().states().size(), 2u);
  EXPECT_EQ(rig.ctx().states()[0].name, "w/accumulated");
  EXPECT_EQ(rig.ctx().states()[1].name, "h/accumulated");
}

TEST(GradientAccumulator, AccumulatesAndResets) {
  OptimiserRig rig(2);
  rig.addParameter("w", 5, poplar::FLOAT, true);
  rig.addParameter("h", 3, poplar::HALF, true);
  GradientAccumulator accumulator(rig.ctx());
  rig.graph().createHostRead("w/acc", accumulator.accumulated(0));
  rig.graph().createHostRead("h/acc", accumulator.accumulated(1));
  poplar::program::Sequence accumulate, reset;
  accumulator.accumulate(accumulate);
  accumulator.reset(reset);
  rig.load({rig.ctx().initialise, accumulate, reset});
  rig.write("w/grad", {1, 2, 3, 4, 5});
  rig.write("h/grad", {0.5f, -1, 2});
  rig.engine().run(1);
  rig.write("w/grad", {10, 20, 30, 40, 50});
  rig.write("h/grad", {0.25f, 1, -4});
  rig.engine().run(1);
  EXPECT_EQ(rig.read("w/acc", 5), (std::vector<float>{11, 22, 33, 44, 55}));
  EXPECT_EQ(rig.read("h/acc", 3), (std::vector<float>{0.75f, 0, -2}));
  rig.engine().run(2);
  EXPECT_EQ(rig.read("w/acc", 5), std::vector<float>(5, 0.0f));
  EXPECT_EQ(rig.read("h/acc", 3), std::vector<float>(3, 0.0f));
}

TEST(GradientAccumulator, ThreeMicroBatchesThenAdamWEqualsTheMeanGradient) {
  OptimiserRig rig;
  rig.addParameter("weights", 23, poplar::FLOAT, true);
  rig.addParameter("bias", 4, poplar::FLOAT, false);
  rig.addParameter("halfWeights", 9, poplar::HALF, true);
  GradientAccumulator accumulator(rig.ctx());
  AdamWOptions options;
  options.gradientScale = rig.addScalar("gradientScale");
  AdamWOptimiser adamw(rig.ctx(), options);
  poplar::program::Sequence accumulate, update, reset;
  accumulator.accumulate(accumulate);
  adamw.update(rig.ctx(), update);
  accumulator.reset(reset);
  rig.load({rig.ctx().initialise, accumulate, update, reset});

  std::mt19937 rng(5);
  std::normal_distribution<float> normal;
  std::vector<HostParameter> host = {{"weights", poplar::FLOAT, true, {}, {}, {}},
                                     {"bias", poplar::FLOAT, false, {}, {}, {}},
                                     {"halfWeights", poplar::HALF, true, {}, {}, {}}};
  const std::vector<std::size_t> sizes = {23, 4, 9};
  auto randomFor = [&](const HostParameter &p, std::size_t n) {
    std::vector<float> x(n);
    for (auto &e : x)
      e = p.type == poplar::HALF ? float(roundToHalf(normal(rng))) : normal(rng);
    return x;
  };
  for (std::size_t k = 0; k < host.size(); ++k) {
    const std::vector<float> w = randomFor(host[k], sizes[k]);
    host[k].w.assign(w.begin(), w.end());
    host[k].m.assign(sizes[k], 0.0);
    host[k].v.assign(sizes[k], 0.0);
    rig.write(host[k].name, w);
  }
  const unsigned microBatches = 3;
  rig.writeScalar("gradientScale", 1.0f / microBatches);
  for (int step = 1; step <= 2; ++step) {
    std::vector<std::vector<double>> sums(host.size());
    for (std::size_t k = 0; k < host.size(); ++k)
      sums[k].assign(sizes[k], 0.0);
    for (unsigned b = 0; b < microBatches; ++b) {
      for (std::size_t k = 0; k < host.size(); ++k) {
        const std::vector<float> g = randomFor(host[k], sizes[k]);
        for (std::size_t i = 0; i < g.size(); ++i)
          sums[k][i] += g[i];
        rig.write(host[k].name + "/grad", g);
      }
      rig.engine().run(1);
    }
    const float lr = 0.02f;
    rig.writeScalar("learningRate", lr);
    rig.engine().run(2);
    rig.engine().run(3);
    std::vector<std::vector<float>> means(host.size());
    for (std::size_t k = 0; k < host.size(); ++k)
      for (double s : sums[k])
        means[k].push_back(float(s / microBatches));
    test::hostStep(test::Kind::AdamW, options, host, means, lr, 1.0, step);
    for (const HostParameter &p : host) {
      const std::vector<float> w = rig.read(p.name, p.w.size());
      const double tolerance = p.type == poplar::HALF ? 1e-3 : 2e-6;
      for (std::size_t i = 0; i < w.size(); ++i)
        EXPECT_NEAR(w[i], p.w[i], tolerance * (1 + std::fabs(p.w[i])))
            << p.name << "[" << i << "] step " << step;
    }
  }
}

TEST(GradientAccumulator, ParameterWithoutGradientIsNamed) {
  OptimiserRig rig(2);
  rig.addParameter("fine", 2, poplar::FLOAT, true);
  poplar::Tensor w = rig.graph().addVariable(poplar::FLOAT, {3}, "w");
  rig.graph().setTileMapping(w, 0);
  rig.ctx().addParameter("encoder/w", w, true);
  try {
    GradientAccumulator accumulator(rig.ctx());
    FAIL() << "accumulating a parameter without a gradient must fail";
  } catch (const app_error &e) {
    EXPECT_NE(std::string(e.what()).find("'encoder/w'"), std::string::npos) << e.what();
  }
}

} // namespace
} // namespace tessera::apps
