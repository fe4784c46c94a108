// Loss scaling: the scale and its bookkeeping on the device, steps with inf/NaN gradients
// skipped, and the optimiser seeing gradients divided by the scale (and accumulation steps).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include <tessera/apps/AdaptiveOptimisers.hpp>
#include <tessera/apps/Errors.hpp>
#include <tessera/apps/GradientAccumulator.hpp>
#include <tessera/apps/LossScaling.hpp>

#include "AdaptiveReference.hpp"
#include "OptimiserRig.hpp"

namespace tessera::apps {
namespace {

using test::HostParameter;
using test::OptimiserRig;
using test::roundToHalf;

/// A FLOAT weight and a HALF weight, AdamW with the scaler's gradient scale, and host state to
/// check them against.
struct ScaledTraining {
  OptimiserRig rig;
  std::vector<HostParameter> host = {{"weights", poplar::FLOAT, true, {}, {}, {}},
                                     {"halfWeights", poplar::HALF, false, {}, {}, {}}};
  std::vector<std::size_t> sizes = {19, 7};
  std::mt19937 rng{3};
  std::normal_distribution<float> normal;
  AdamWOptions options;
  int hostSteps = 0;

  void addParameters() {
    for (std::size_t k = 0; k < host.size(); ++k)
      rig.addParameter(host[k].name, sizes[k], host[k].type, host[k].decay);
  }

  void initialiseWeights() {
    for (std::size_t k = 0; k < host.size(); ++k) {
      std::vector<float> w = randomFor(k);
      host[k].w.assign(w.begin(), w.end());
      host[k].m.assign(sizes[k], 0.0);
      host[k].v.assign(sizes[k], 0.0);
      rig.write(host[k].name, w);
    }
    rig.writeScalar("learningRate", 0.01f);
  }

  std::vector<float> randomFor(std::size_t k) {
    std::vector<float> x(sizes[k]);
    for (auto &e : x)
      e = host[k].type == poplar::HALF ? float(roundToHalf(normal(rng))) : normal(rng);
    return x;
  }

  /// Writes gradients g · scale (exact: scale is a power of 2) and returns g.
  std::vector<std::vector<float>> writeScaledGradients(float scale) {
    std::vector<std::vector<float>> grads;
    for (std::size_t k = 0; k < host.size(); ++k) {
      grads.push_back(randomFor(k));
      std::vector<float> scaled = grads.back();
      for (auto &e : scaled)
        e *= scale;
      rig.write(host[k].name + "/grad", scaled);
    }
    return grads;
  }

  void hostStep(const std::vector<std::vector<float>> &grads) {
    test::hostStep(test::Kind::AdamW, options, host, grads, 0.01, 1.0, ++hostSteps);
  }

  void expectWeightsMatchHost(const std::string &when) {
    for (const HostParameter &p : host) {
      const std::vector<float> w = rig.read(p.name, p.w.size());
      const double tolerance = p.type == poplar::HALF ? 1e-3 : 2e-6;
      for (std::size_t i = 0; i < w.size(); ++i)
        EXPECT_NEAR(w[i], p.w[i], tolerance * (1 + std::fabs(p.w[i])))
            << p.name << "[" << i << "] " << when;
    }
  }
};

TEST(LossScaling, NonFiniteGradientSkipsTheStepAndHalvesTheScale) {
  ScaledTraining t;
  t.addParameters();
  LossScalingOptions scaling;
  scaling.initialScale = 1024;
  scaling.growthInterval = 3;
  LossScaler scaler(t.rig.ctx(), scaling);
  t.options.gradientScale = scaler.gradientScale();
  AdamWOptimiser adamw(t.rig.ctx(), t.options);
  poplar::program::Sequence update, step;
  adamw.update(t.rig.ctx(), update);
  scaler.guardedUpdate(step, update);
  t.rig.graph().createHostRead("optimiserStep", adamw.stepCount());
  t.rig.graph().createHostRead("gradientScale", scaler.gradientScale());
  t.rig.load({t.rig.ctx().initialise, step});
  t.initialiseWeights();
  EXPECT_EQ(t.rig.readScalar("lossScale"), 1024.0f);
  EXPECT_EQ(t.rig.readScalar("gradientScale"), 1.0f / 1024);

  // A good step: the optimiser sees the unscaled gradients.
  t.hostStep(t.writeScaledGradients(1024));
  t.rig.engine().run(1);
  t.expectWeightsMatchHost("after a good step");
  EXPECT_EQ(t.rig.readScalar("lossScale"), 1024.0f);
  EXPECT_EQ(t.rig.readScalar("skippedSteps"), 0.0f);

  // inf in the HALF gradient, then NaN in the FLOAT one: both skipped.
  const std::vector<float> before = t.rig.read("weights", t.sizes[0]);
  for (int bad = 0; bad < 2; ++bad) {
    std::vector<float> g(t.sizes[bad == 0 ? 1 : 0], 1.0f);
    g[bad == 0 ? 3 : 11] =
        bad == 0 ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
    t.writeScaledGradients(1);
    t.rig.write(bad == 0 ? "halfWeights/grad" : "weights/grad", g);
    t.rig.engine().run(1);
    EXPECT_EQ(t.rig.read("weights", t.sizes[0]), before) << "bad step " << bad;
    t.expectWeightsMatchHost("after bad step " + std::to_string(bad));
    EXPECT_EQ(t.rig.readScalar("lossScale"), bad == 0 ? 512.0f : 256.0f);
    EXPECT_EQ(t.rig.readScalar("skippedSteps"), float(bad + 1));
    EXPECT_EQ(t.rig.readScalar("optimiserStep"), 1.0f) << "a skipped step is not counted";
  }
  // HALF overflow counts too: 70000 is finite in FLOAT but inf once stored as HALF.
  {
    t.writeScaledGradients(1);
    t.rig.write("halfWeights/grad", std::vector<float>(t.sizes[1], 70000.0f));
    t.rig.engine().run(1);
    EXPECT_EQ(t.rig.readScalar("lossScale"), 128.0f);
    EXPECT_EQ(t.rig.readScalar("skippedSteps"), 3.0f);
  }

  // Three good steps at 128 double the scale once; the moments carried over the skips.
  for (int good = 1; good <= 4; ++good) {
    const float scale = good <= 3 ? 128.0f : 256.0f;
    t.hostStep(t.writeScaledGradients(scale));
    t.rig.engine().run(1);
    EXPECT_EQ(t.rig.readScalar("gradientScale"), 1.0f / scale) << good;
    t.expectWeightsMatchHost("after good step " + std::to_string(good));
    EXPECT_EQ(t.rig.readScalar("lossScale"), good < 3 ? 128.0f : 256.0f) << good;
  }
  EXPECT_EQ(t.rig.readScalar("skippedSteps"), 3.0f);
  EXPECT_EQ(t.rig.readScalar("optimiserStep"), 5.0f);
}

TEST(LossScaling, ScaleStaysWithinItsBounds) {
  OptimiserRig rig(2);
  rig.addParameter("w", 3, poplar::FLOAT, true);
  LossScalingOptions scaling;
  scaling.initialScale = 4;
  scaling.minScale = 2;
  scaling.maxScale = 8;
  scaling.growthInterval = 1;
  LossScaler scaler(rig.ctx(), scaling);
  poplar::program::Sequence step;
  scaler.guardedUpdate(step, poplar::program::Sequence{});
  rig.load({rig.ctx().initialise, step});
  const float inf = std::numeric_limits<float>::infinity();
  struct Case {
    float gradient, scale;
  };
  for (const Case &c :
       {Case{1, 8}, Case{1, 8}, Case{inf, 4}, Case{-inf, 2}, Case{inf, 2}, Case{0, 4}}) {
    rig.write("w/grad", {0.5f, c.gradient, 2});
    rig.engine().run(1);
    EXPECT_EQ(rig.readScalar("lossScale"), c.scale) << "gradient " << c.gradient;
  }
  EXPECT_EQ(rig.readScalar("skippedSteps"), 3.0f);
}

TEST(LossScaling, StaticScaleStaysFixedAndDividesAccumulatedGradients) {
  ScaledTraining t;
  t.addParameters();
  GradientAccumulator accumulator(t.rig.ctx());
  LossScalingOptions scaling;
  scaling.dynamic = false;
  scaling.initialScale = 128;
  scaling.accumulationSteps = 2;
  LossScaler scaler(t.rig.ctx(), scaling);
  t.options.gradientScale = scaler.gradientScale();
  t.options.weightDecay = 0.1f;
  AdamWOptimiser adamw(t.rig.ctx(), t.options);
  poplar::program::Sequence accumulate, update, step;
  accumulator.accumulate(accumulate);
  adamw.update(t.rig.ctx(), update);
  scaler.guardedUpdate(step, update);
  accumulator.reset(step);
  t.rig.graph().createHostRead("gradientScale", scaler.gradientScale());
  t.rig.load({t.rig.ctx().initialise, accumulate, step});
  t.initialiseWeights();
  for (int s = 1; s <= 2; ++s) {
    const auto g1 = t.writeScaledGradients(128);
    t.rig.engine().run(1);
    const auto g2 = t.writeScaledGradients(128);
    t.rig.engine().run(1);
    std::vector<std::vector<float>> mean(g1.size());
    for (std::size_t k = 0; k < g1.size(); ++k)
      for (std::size_t i = 0; i < g1[k].size(); ++i)
        mean[k].push_back(float((double(g1[k][i]) + g2[k][i]) / 2));
    t.hostStep(mean);
    t.rig.engine().run(2);
    t.expectWeightsMatchHost("after step " + std::to_string(s));
    EXPECT_EQ(t.rig.readScalar("lossScale"), 128.0f);
    EXPECT_EQ(t.rig.readScalar("gradientScale"), 1.0f / 256);
  }
  EXPECT_EQ(t.rig.readScalar("skippedSteps"), 0.0f);
}

TEST(LossScaling, StateIsRegisteredForCheckpoints) {
  OptimiserRig rig(2);
  LossScaler scaler(rig.ctx(), {});
  std::vector<std::string> names;
  for (const auto &s : rig.ctx().states())
    names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"lossScale", "skippedSteps", "lossScale/goodSteps"}));
}

TEST(LossScaling, CheckReadsTheAccumulatorsOnceSwappedIn) {
  OptimiserRig rig(2);
  rig.addParameter("w", 4, poplar::FLOAT, true);
  GradientAccumulator accumulator(rig.ctx());
  LossScaler scaler(rig.ctx(), {});
  poplar::program::Sequence accumulate, check;
  accumulator.accumulate(accumulate);
  rig.graph().createHostRead("finite", scaler.allGradientsFinite(check));
  rig.load({rig.ctx().initialise, accumulate, check});
  auto finite = [&] {
    rig.engine().run(2);
    bool value = false;
    rig.engine().readTensor("finite", &value, &value + 1);
    return value;
  };
  rig.write("w/grad", {1, 2, std::numeric_limits<float>::infinity(), 4});
  EXPECT_TRUE(finite()) << "the raw gradient is not what the optimiser reads";
  rig.engine().run(1);
  EXPECT_FALSE(finite());
}

TEST(LossScaling, ParameterWithoutGradientIsNamed) {
  OptimiserRig rig(2);
  poplar::Tensor w = rig.graph().addVariable(poplar::FLOAT, {3}, "w");
  rig.graph().setTileMapping(w, 0);
  rig.ctx().addParameter("pooler/w", w, true);
  LossScaler scaler(rig.ctx(), {});
  poplar::program::Sequence prog;
  try {
    scaler.guardedUpdate(prog, poplar::program::Sequence{});
    FAIL() << "checking a parameter without a gradient must fail";
  } catch (const app_error &e) {
    EXPECT_NE(std::string(e.what()).find("'pooler/w'"), std::string::npos) << e.what();
  }
}

TEST(LossScaling, BadOptionsNameTheField) {
  struct Case {
    LossScalingOptions options;
    std::string field;
  };
  std::vector<Case> cases(6);
  cases[0].options.initialScale = 0, cases[0].field = "initialScale";
  cases[1].options.accumulationSteps = 0, cases[1].field = "accumulationSteps";
  cases[2].options.growthInterval = 0, cases[2].field = "growthInterval";
  cases[3].options.minScale = 0, cases[3].field = "minScale";
  cases[4].options.maxScale = 1024, cases[4].field = "maxScale";
  cases[5].options.initialScale = std::numeric_limits<float>::infinity(),
  cases[5].field = "initialScale";
  for (const Case &c : cases) {
    OptimiserRig rig(2);
    try {
      LossScaler scaler(rig.ctx(), c.options);
      ADD_FAILURE() << c.field << " out of range must be rejected";
    } catch (const app_error &e) {
      EXPECT_NE(std::string(e.what()).find(c.field), std::string::npos) << e.what();
    }
  }
}

} // namespace
} // namespace tessera::apps
