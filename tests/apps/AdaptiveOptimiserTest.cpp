// AdamW and LAMB on the device against the same updates computed on the host in double, step
// by step (so the moments and the step counter carry), for a decayed FLOAT weight, an undecayed
// FLOAT bias and a decayed HALF weight.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include <tessera/apps/AdaptiveOptimisers.hpp>
#include <tessera/apps/Errors.hpp>

#include "AdaptiveReference.hpp"
#include "OptimiserRig.hpp"

namespace tessera::apps {
namespace {

using test::HostParameter;
using test::hostStep;
using test::Kind;
using test::OptimiserRig;
using test::roundToHalf;

struct Scenario {
  std::size_t weightSize = 37, biasSize = 5, halfSize = 12;
  /// Initial weights: 0 → all zeros (LAMB's ‖w‖ = 0 case), else normal.
  bool zeroWeights = false;
  /// Gradients: all zeros for the bias (LAMB's ‖u‖ = 0 case: no decay, no gradient).
  bool zeroBiasGradient = false;
  std::optional<float> gradientScale;
  int steps = 2;
};

void checkAgainstHost(Kind kind, AdaptiveOptions options, const Scenario &setup = {}) {
  OptimiserRig rig;
  rig.addParameter("weights", setup.weightSize, poplar::FLOAT, true);
  rig.addParameter("bias", setup.biasSize, poplar::FLOAT, false);
  rig.addParameter("halfWeights", setup.halfSize, poplar::HALF, true);
  if (setup.gradientScale)
    options.gradientScale = rig.addScalar("gradientScale");
  poplar::program::Sequence update;
  if (kind == Kind::AdamW) {
    AdamWOptions o;
    static_cast<AdaptiveOptions &>(o) = options;
    AdamWOptimiser optimiser(rig.ctx(), o);
    optimiser.update(rig.ctx(), update);
    rig.graph().createHostRead("step", optimiser.stepCount());
  } else {
    LambOptions o;
    static_cast<AdaptiveOptions &>(o) = options;
    LambOptimiser optimiser(rig.ctx(), o);
    optimiser.update(rig.ctx(), update);
    rig.graph().createHostRead("step", optimiser.stepCount());
  }
  rig.load({rig.ctx().initialise, update});

  std::mt19937 rng(11);
  std::normal_distribution<float> normal;
  std::vector<HostParameter> host = {{"weights", poplar::FLOAT, true, {}, {}, {}},
                                     {"bias", poplar::FLOAT, false, {}, {}, {}},
                                     {"halfWeights", poplar::HALF, true, {}, {}, {}}};
  const std::vector<std::size_t> sizes = {setup.weightSize, setup.biasSize, setup.halfSize};
  for (std::size_t k = 0; k < host.size(); ++k) {
    std::vector<float> w(sizes[k]);
    for (auto &x : w) {
      x = setup.zeroWeights ? 0.0f : normal(rng);
      if (host[k].type == poplar::HALF)
        x = float(roundToHalf(x));
    }
    host[k].w.assign(w.begin(), w.end());
    host[k].m.assign(w.size(), 0.0);
    host[k].v.assign(w.size(), 0.0);
    rig.write(host[k].name, w);
  }
  if (setup.gradientScale)
    rig.writeScalar("gradientScale", *setup.gradientScale);

  for (int step = 1; step <= setup.steps; ++step) {
    const float lr = 0.01f / float(step);
    rig.writeScalar("learningRate", lr);
    std::vector<std::vector<float>> grads(host.size());
    for (std::size_t k = 0; k < host.size(); ++k) {
      grads[k].resize(sizes[k]);
      for (auto &x : grads[k]) {
        x = setup.zeroBiasGradient && k == 1 ? 0.0f : normal(rng);
        if (host[k].type == poplar::HALF)
          x = float(roundToHalf(x));
      }
      rig.write(host[k].name + "/grad", grads[k]);
    }
    hostStep(kind, options, host, grads, lr, setup.gradientScale.value_or(1.0f), step);
    rig.engine().run(1);

    EXPECT_EQ(rig.readScalar("step"), float(step));
    for (const HostParameter &p : host) {
      const std::vector<float> w = rig.read(p.name, p.w.size());
      // FLOAT: float arithmetic against double; HALF: one rounding step apart at most.
      const double tolerance = p.type == poplar::HALF ? 1e-3 : 2e-6;
      for (std::size_t i = 0; i < w.size(); ++i) {
        ASSERT_TRUE(std::isfinite(w[i])) << p.name << "[" << i << "] step " << step;
        EXPECT_NEAR(w[i], p.w[i], tolerance * (1 + std::fabs(p.w[i])))
            << p.name << "[" << i << "] step " << step;
      }
    }
  }
}

AdaptiveOptions withBiasCorrection(bool on) {
  AdaptiveOptions o;
  o.biasCorrection = on;
  return o;
}

TEST(AdamW, DefaultsMatchHostReferenceOverTwoSteps) {
  EXPECT_TRUE(AdamWOptions{}.biasCorrection);
  checkAgainstHost(Kind::AdamW, AdamWOptions{});
}

TEST(AdamW, WithoutBiasCorrectionMatchesHostReference) {
  checkAgainstHost(Kind::AdamW, withBiasCorrection(false));
}

TEST(AdamW, OtherHyperparametersMatchHostReference) {
  AdaptiveOptions o;
  o.beta1 = 0.0f; // bias correction 1 − 0^t = 1, not −expm1(t·ln 0)
  o.beta2 = 0.9f;
  o.epsilon = 1e-3f;
  o.weightDecay = 0.3f;
  Scenario setup;
  setup.steps = 3;
  checkAgainstHost(Kind::AdamW, o, setup);
}

TEST(AdamW, GradientScaleMultipliesEveryGradient) {
  Scenario setup;
  setup.gradientScale = 1.0f / 1024;
  checkAgainstHost(Kind::AdamW, withBiasCorrection(false), setup);
}

TEST(Lamb, DefaultsMatchHostReferenceOverTwoSteps) {
  EXPECT_FALSE(LambOptions{}.biasCorrection);
  checkAgainstHost(Kind::Lamb, LambOptions{});
}

TEST(Lamb, WithBiasCorrectionMatchesHostReference) {
  Scenario setup;
  setup.steps = 3;
  checkAgainstHost(Kind::Lamb, withBiasCorrection(true), setup);
}

TEST(Lamb, GradientScaleMultipliesEveryGradient) {
  Scenario setup;
  setup.gradientScale = 0.25f;
  checkAgainstHost(Kind::Lamb, LambOptions{}, setup);
}

TEST(Lamb, ZeroNormsGiveTrustRatioOne) {
  // Step 1: every ‖w‖ is 0, so r = 1 (not 0: the weights must move); the bias has no decay
  // and a zero gradient, so ‖u‖ = 0 and r = 1 (not ‖w‖/0: the bias must stay finite and
  // unchanged). Step 2 has ‖w‖ > 0 for the weights.
  Scenario setup;
  setup.zeroWeights = true;
  setup.zeroBiasGradient = true;
  checkAgainstHost(Kind::Lamb, LambOptions{}, setup);
}

template <class Optimiser> void expectMissingGradientNamed() {
  OptimiserRig rig(2);
  poplar::Tensor w = rig.graph().addVariable(poplar::FLOAT, {3}, "w");
  rig.graph().setTileMapping(w, 0);
  rig.ctx().addParameter("layer/w", w, true);
  Optimiser optimiser(rig.ctx());
  poplar::program::Sequence prog;
  try {
    optimiser.update(rig.ctx(), prog);
    FAIL() << "an update without gradients must fail";
  } catch (const app_error &e) {
    EXPECT_NE(std::string(e.what()).find("'layer/w'"), std::string::npos) << e.what();
  }
}

TEST(AdaptiveOptimisers, ParameterWithoutGradientIsNamed) {
  expectMissingGradientNamed<AdamWOptimiser>();
  expectMissingGradientNamed<LambOptimiser>();
}

TEST(AdaptiveOptimisers, BadOptionsNameTheField) {
  struct Case {
    AdaptiveOptions options;
    std::string field;
  };
  std::vector<Case> cases(7);
  cases[0].options.beta1 = 1.0f, cases[0].field = "beta1";
  cases[1].options.beta1 = -0.1f, cases[1].field = "beta1";
  cases[2].options.beta2 = 1.5f, cases[2].field = "beta2";
  cases[3].options.epsilon = -1e-8f, cases[3].field = "epsilon";
  cases[4].options.weightDecay = -0.01f, cases[4].field = "weightDecay";
  cases[5].options.beta2 = NAN, cases[5].field = "beta2";
  cases[6].field = "gradientScale";
  for (Case &c : cases) {
    OptimiserRig rig(2);
    if (c.field == "gradientScale") {
      c.options.gradientScale = rig.graph().addVariable(poplar::FLOAT, {2}, "twoScales");
      rig.graph().setTileMapping(c.options.gradientScale, 0);
    }
    for (Kind kind : {Kind::AdamW, Kind::Lamb}) {
      try {
        if (kind == Kind::AdamW) {
          AdamWOptions o;
          static_cast<AdaptiveOptions &>(o) = c.options;
          AdamWOptimiser optimiser(rig.ctx(), o);
        } else {
          LambOptions o;
          static_cast<AdaptiveOptions &>(o) = c.options;
          LambOptimiser optimiser(rig.ctx(), o);
        }
        ADD_FAILURE() << c.field << " out of range must be rejected";
      } catch (const app_error &e) {
        EXPECT_NE(std::string(e.what()).find(c.field), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(kind == Kind::AdamW ? "AdamW" : "LAMB"),
                  std::string::npos)
            << e.what();
      }
    }
  }
}

TEST(AdaptiveOptimisers, StateTensorsAreRegisteredForCheckpoints) {
  OptimiserRig rig(2);
  rig.addParameter("dense/w", 4, poplar::FLOAT, true);
  rig.addParameter("dense/b", 2, poplar::HALF, false);
  LambOptimiser optimiser(rig.ctx());
  poplar::program::Sequence update;
  optimiser.update(rig.ctx(), update);
  std::vector<std::string> names;
  for (const auto &s : rig.ctx().states()) {
    names.push_back(s.name);
    EXPECT_EQ(s.value.elementType(), poplar::FLOAT) << s.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"optimiser/step", "dense/w/m", "dense/w/v",
                                             "dense/b/m", "dense/b/v"}));
}

} // namespace
} // namespace tessera::apps
