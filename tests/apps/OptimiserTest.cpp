// SGD with momentum, Nesterov and weight decay on the device against the same update computed
// on the host in double precision, over several steps with a changing learning rate.
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

} // namespace
} // namespace tessera::apps
