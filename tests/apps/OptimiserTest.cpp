// SGD with momentum, Nesterov and weight decay on the device against the same update computed
// on the host in double precision, over several steps with a changing learning rate; RMSprop
// (TensorFlow's formulation) against its closed form after one and two steps, weights and state.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/codelets.hpp>
#include <poprand/codelets.hpp>
#include <poputil/TileMapping.hpp>

#include <tessera/apps/Errors.hpp>
#include <tessera/apps/Optimiser.hpp>

#include "OptimiserRig.hpp"

namespace tessera::apps {
namespace {

struct Reference {
  std::vector<double> w, v;
  void step(const std::vector<float> &g, double lr, const SgdOptions &o, bool decay) {
    for (std::size_t i = 0; i < w.size(); ++i) {
      const double grad = g[i] + (decay ? o.weightDecay : 0.0) * w[i];
      v[i] = o.momentum * v[i] + grad;
      w[i] -= lr * (o.nesterov ? grad + o.momentum * v[i] : v[i]);
    }
  }
};

void checkSgd(const SgdOptions &options) {
  poplar::IPUModel ipu;
  ipu.tilesPerIPU = 4;
  poplar::Device device = ipu.createDevice();
  poplar::Graph graph(device.getTarget());
  popops::addCodelets(graph);
  poprand::addCodelets(graph);
  BuildContext ctx(graph, poplar::FLOAT, 1);
  const std::size_t n = 37;
  auto makeParameter = [&](const std::string &name, bool decay) -> Parameter & {
    poplar::Tensor w = graph.addVariable(poplar::FLOAT, {n}, name);
    poputil::mapTensorLinearly(graph, w, 1, 1);
    Parameter &p = ctx.addParameter(name, w, decay);
    p.gradient = graph.clone(w, name + "/grad");
    graph.createHostWrite(name, w);
    graph.createHostRead(name, w);
    graph.createHostWrite(name + "/grad", p.gradient);
    return p;
  };
  makeParameter("weights", true);
  makeParameter("bias", false);
  SgdOptimiser sgd(ctx, options);
  poplar::program::Sequence update;
  sgd.update(ctx, update);
  poplar::Engine engine(graph, {ctx.initialise, update});
  engine.load(device);
  engine.run(0);

  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  std::vector<Reference> refs(2);
  for (unsigned k = 0; k < 2; ++k) {
    std::vector<float> w(n);
    for (auto &x : w)
      x = normal(rng);
    refs[k].w.assign(w.begin(), w.end());
    refs[k].v.assign(n, 0.0);
    engine.writeTensor(k == 0 ? "weights" : "bias", w.data(), w.data() + n);
  }
  for (int step = 0; step < 4; ++step) {
    const float lr = 0.1f / float(step + 1);
    engine.writeTensor("learningRate", &lr, &lr + 1);
    for (unsigned k = 0; k < 2; ++k) {
      std::vector<float> g(n);
      for (auto &x : g)
        x = normal(rng);
      engine.writeTensor(k == 0 ? "weights/grad" : "bias/grad", g.data(), g.data() + n);
      refs[k].step(g, lr, options, k == 0);
    }
    engine.run(1);
  }
  for (unsigned k = 0; k < 2; ++k) {
    std::vector<float> w(n);
    engine.readTensor(k == 0 ? "weights" : "bias", w.data(), w.data() + n);
    for (std::size_t i = 0; i < n; ++i)
      EXPECT_NEAR(w[i], refs[k].w[i], 1e-5 * (1 + std::fabs(refs[k].w[i]))) << k << "[" << i << "]";
  }
}

TEST(SgdOptimiser, MomentumWithWeightDecayMatchesHostReference) { checkSgd({0.9f, 0.01f, false}); }

TEST(SgdOptimiser, NesterovMatchesHostReference) { checkSgd({0.8f, 0.001f, true}); }

TEST(SgdOptimiser, ParameterWithoutGradientIsNamed) {
  poplar::IPUModel ipu;
  ipu.tilesPerIPU = 2;
  poplar::Device device = ipu.createDevice();
  poplar::Graph graph(device.getTarget());
  popops::addCodelets(graph);
  BuildContext ctx(graph, poplar::FLOAT, 1);
  poplar::Tensor w = graph.addVariable(poplar::FLOAT, {3}, "w");
  graph.setTileMapping(w, 0);
  ctx.addParameter("layer/w", w, true);
  SgdOptimiser sgd(ctx, {});
  poplar::program::Sequence prog;
  try {
    sgd.update(ctx, prog);
    FAIL() << "an update without gradients must fail";
  } catch (const app_error &e) {
    EXPECT_NE(std::string(e.what()).find("layer/w"), std::string::npos) << e.what();
  }
}

// ---- RMSprop -----------------------------------------------------------------------------------

/// An RMSprop graph over a decayed "weights" and an undecayed "bias" (FLOAT, 6 elements each) whose
/// state tensors are readable as "state:<name>".
struct RmsPropRig {
  static constexpr std::size_t n = 6;
  test::OptimiserRig rig;
  explicit RmsPropRig(const RmsPropOptions &options) {
    rig.addParameter("weights", n, poplar::FLOAT, true);
    rig.addParameter("bias", n, poplar::FLOAT, false);
    RmsPropOptimiser rmsprop(rig.ctx(), options);
    poplar::program::Sequence update;
    rmsprop.update(rig.ctx(), update);
    for (const auto &s : rig.ctx().states())
      rig.graph().createHostRead("state:" + s.name, s.value);
    rig.load({rig.ctx().initialise, update});
  }
  /// One update with learning rate `lr` and gradients `g` for both parameters.
  void step(float lr, const std::vector<float> &weightGrad, const std::vector<float> &biasGrad) {
    rig.writeScalar("learningRate", lr);
    rig.write("weights/grad", weightGrad);
    rig.write("bias/grad", biasGrad);
    rig.engine().run(1);
  }
  std::vector<float> read(const std::string &handle) { return rig.read(handle, n); }
};

void expectNear(const std::vector<float> &got, const std::vector<double> &want,
                const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 2e-6 * (1 + std::fabs(want[i]))) << what << "[" << i << "]";
}

TEST(RmsPropOptimiser, OneAndTwoStepsMatchTheClosedForm) {
  const RmsPropOptions o{0.9f, 0.9f, 1e-3f, 0.01f, 1.0f};
  RmsPropRig r(o);
  const std::vector<float> w0 = {1.0f, -0.5f, 0.25f, 2.0f, -1.5f, 0.0f};
  const std::vector<float> b0 = {0.1f, 0.2f, -0.3f, 0.4f, -0.5f, 0.6f};
  const std::vector<float> g1 = {0.5f, -2.0f, 0.0f, 0.1f, 3.0f, -0.25f};
  const std::vector<float> g2 = {-0.5f, 1.0f, 0.75f, 0.0f, 0.5f, 2.0f};
  r.rig.write("weights", w0);
  r.rig.write("bias", b0);
  // The state starts as TensorFlow 1's: ms = 1, mom = 0.
  expectNear(r.read("state:weights/rms"), std::vector<double>(6, 1.0), "rms0");
  expectNear(r.read("state:bias/momentum"), std::vector<double>(6, 0.0), "momentum0");
  const double rho = o.decay, mu = o.momentum, eps = o.epsilon, wd = o.weightDecay;
  const double lr1 = 0.1, lr2 = 0.05;
  r.step(float(lr1), g1, g1);
  r.step(float(lr2), g2, g2);
  // Each element in closed form: g' = g + wd·w (weights only), then step 1 from ms0 = 1, mom0 = 0:
  //   ms1 = ρ + (1−ρ)·g'1²,  mom1 = lr1·g'1 / √(ms1 + ε),  w1 = w0 − mom1
  // and step 2:
  //   ms2 = ρ·ms1 + (1−ρ)·g'2²,  mom2 = μ·mom1 + lr2·g'2 / √(ms2 + ε),  w2 = w1 − mom2.
  for (bool decayed : {true, false}) {
    const std::vector<float> &start = decayed ? w0 : b0;
    const double decay = decayed ? wd : 0.0;
    std::vector<double> ms2(6), mom2(6), w2(6);
    for (std::size_t i = 0; i < 6; ++i) {
      const double gp1 = g1[i] + decay * start[i];
      const double ms1 = rho + (1 - rho) * gp1 * gp1;
      const double mom1 = lr1 * gp1 / std::sqrt(ms1 + eps);
      const double w1 = start[i] - mom1;
      const double gp2 = g2[i] + decay * w1;
      ms2[i] = rho * ms1 + (1 - rho) * gp2 * gp2;
      mom2[i] = mu * mom1 + lr2 * gp2 / std::sqrt(ms2[i] + eps);
      w2[i] = w1 - mom2[i];
    }
    const std::string name = decayed ? "weights" : "bias";
    expectNear(r.read(name), w2, name);
    expectNear(r.read("state:" + name + "/rms"), ms2, name + "/rms");
    expectNear(r.read("state:" + name + "/momentum"), mom2, name + "/momentum");
  }
  // One element by hand: bias[0] = 0.1, g = 0.5, lr 0.1 → ms = 0.925, step 0.05 / √0.926.
  RmsPropRig single(o);
  single.rig.write("bias", b0);
  single.step(0.1f, g1, g1);
  EXPECT_NEAR(single.read("bias")[0], 0.1 - 0.05 / std::sqrt(0.926), 1e-7);
  EXPECT_NEAR(single.read("state:bias/rms")[0], 0.925, 1e-7);
}

TEST(RmsPropOptimiser, KerasStartFromZeroMeanSquare) {
  RmsPropOptions o;
  o.initialMeanSquare = 0.0f;
  o.weightDecay = 0.0f;
  RmsPropRig r(o);
  const std::vector<float> w0(6, 1.0f), g = {0.5f, -2.0f, 0.0f, 0.1f, 3.0f, -0.25f};
  r.rig.write("weights", w0);
  r.step(0.1f, g, g);
  std::vector<double> want(6);
  for (std::size_t i = 0; i < 6; ++i) // ms = 0.1·g², so the first step is about lr·√10·sign(g)
    want[i] = 1.0 - 0.1 * g[i] / std::sqrt(0.1 * g[i] * g[i] + 1e-3);
  expectNear(r.read("weights"), want, "weights");
}

TEST(RmsPropOptimiser, OptionsOutOfRangeAreNamed) {
  const std::vector<std::pair<RmsPropOptions, std::string>> cases = {
      {{1.0f, 0.9f, 1e-3f, 0.0f, 1.0f}, "decay"},
      {{0.9f, -0.1f, 1e-3f, 0.0f, 1.0f}, "momentum"},
      {{0.9f, 0.9f, 0.0f, 0.0f, 1.0f}, "epsilon"},
      {{0.9f, 0.9f, 1e-3f, -1.0f, 1.0f}, "weightDecay"},
      {{0.9f, 0.9f, 1e-3f, 0.0f, -1.0f}, "initialMeanSquare"},
  };
  for (const auto &[options, field] : cases) {
    test::OptimiserRig rig(2);
    try {
      RmsPropOptimiser rmsprop(rig.ctx(), options);
      ADD_FAILURE() << field << " accepted";
    } catch (const app_error &e) {
      EXPECT_NE(std::string(e.what()).find("RMSprop option " + field), std::string::npos)
          << e.what();
    }
  }
}

} // namespace
} // namespace tessera::apps
