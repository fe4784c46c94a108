// BERT's self-attention on the device against a naive double-precision reference: the forward
// output directly, and every gradient (input, projections' weights and biases) against central
// finite differences of the reference loss L = Σ gradOut ⊙ out.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <random>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <poplin/codelets.hpp>
#include <popnn/codelets.hpp>
#include <popops/codelets.hpp>
#include <poprand/codelets.hpp>
#include <poputil/TileMapping.hpp>

#include <tessera/apps/Errors.hpp>

#include "model/SelfAttention.hpp"

namespace tessera::bert {
namespace {

using Vec = std::vector<double>;

struct Shape {
  std::size_t B = 2, S = 4, H = 8, N = 2;
  std::size_t D() const { return H / N; }
  std::size_t T() const { return B * S; }
};

/// out[t][:] of attention with weights Wqkv [H][3H], bqkv, Wo [H][H], bo over x [T][H] and
/// the additive mask [B][S][S], in double and written as loops.
Vec referenceAttention(const Shape &s, const std::map<std::string, Vec> &p, const Vec &x,
                       const Vec &mask) {
  const Vec &wqkv = p.at("attn/qkv/weights"), &bqkv = p.at("attn/qkv/bias");
  const Vec &wo = p.at("attn/output/weights"), &bo = p.at("attn/output/bias");
  const std::size_t H = s.H, D = s.D();
  Vec qkv(s.T() * 3 * H);
  for (std::size_t t = 0; t < s.T(); ++t)
    for (std::size_t j = 0; j < 3 * H; ++j) {
      double acc = bqkv[j];
      for (std::size_t i = 0; i < H; ++i)
        acc += x[t * H + i] * wqkv[i * 3 * H + j];
      qkv[t * 3 * H + j] = acc;
    }
  Vec context(s.T() * H, 0.0);
  for (std::size_t b = 0; b < s.B; ++b)
    for (std::size_t h = 0; h < s.N; ++h)
      for (std::size_t i = 0; i < s.S; ++i) {
        const std::size_t qi = (b * s.S + i) * 3 * H + h * D;
        std::vector<double> scores(s.S);
        double maxScore = -1e300;
        for (std::size_t j = 0; j < s.S; ++j) {
          const std::size_t kj = (b * s.S + j) * 3 * H + H + h * D;
          double dot = 0;
          for (std::size_t d = 0; d < D; ++d)
            dot += qkv[qi + d] * qkv[kj + d];
          scores[j] = dot / std::sqrt(double(D)) + mask[(b * s.S + i) * s.S + j];
          maxScore = std::max(maxScore, scores[j]);
        }
        double sum = 0;
        for (auto &v : scores)
          sum += (v = std::exp(v - maxScore));
        for (std::size_t j = 0; j < s.S; ++j) {
          const std::size_t vj = (b * s.S + j) * 3 * H + 2 * H + h * D;
          for (std::size_t d = 0; d < D; ++d)
            context[(b * s.S + i) * H + h * D + d] += scores[j] / sum * qkv[vj + d];
        }
      }
  Vec out(s.T() * H);
  for (std::size_t t = 0; t < s.T(); ++t)
    for (std::size_t j = 0; j < H; ++j) {
      double acc = bo[j];
      for (std::size_t i = 0; i < H; ++i)
        acc += context[t * H + i] * wo[i * H + j];
      out[t * H + j] = acc;
    }
  return out;
}

/// Central difference of f at every element of `v` (restored afterwards).
Vec finiteDifference(Vec &v, const std::function<double()> &f, double step = 1e-5) {
  Vec grad(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double saved = v[i];
    v[i] = saved + step;
    const double up = f();
    v[i] = saved - step;
    const double down = f();
    v[i] = saved;
    grad[i] = (up - down) / (2 * step);
  }
  return grad;
}

TEST(BertAttention, ForwardAndGradientsMatchDoubleReferenceAndFiniteDifferences) {
  const Shape s;
  poplar::IPUModel ipu;
  ipu.tilesPerIPU = 8;
  poplar::Device device = ipu.createDevice();
  poplar::Graph graph(device.getTarget());
  popops::addCodelets(graph);
  poprand::addCodelets(graph);
  poplin::addCodelets(graph);
  popnn::addCodelets(graph);
  apps::BuildContext ctx(graph, poplar::FLOAT, 11);
  poplar::Tensor seed = graph.addVariable(poplar::UNSIGNED_INT, {2}, "seed");
  graph.setTileMapping(seed, 0);

  auto hostTensor = [&](const std::string &name, std::vector<std::size_t> shape) {
    poplar::Tensor t = graph.addVariable(poplar::FLOAT, shape, name);
    poputil::mapTensorLinearly(graph, t);
    graph.createHostWrite(name, t);
    return t;
  };
  poplar::Tensor x = hostTensor("x", {s.T(), s.H});
  poplar::Tensor mask = hostTensor("mask", {s.B, s.S, s.S});
  poplar::Tensor gradOut = hostTensor("gradOut", {s.T(), s.H});
  SelfAttention attention(ctx, "attn", {s.B, s.S, s.H, s.N}, 0.0f, 0.5f, seed);
  poplar::program::Sequence prog;
  poplar::Tensor out = attention.forward(ctx, x, mask, apps::Mode::Training, prog);
  poplar::Tensor xGrad = attention.backward(ctx, gradOut, prog);
  graph.createHostRead("out", out);
  graph.createHostRead("xGrad", xGrad);
  for (const auto &p : ctx.parameters()) {
    graph.createHostRead(p->name, p->value);
    graph.createHostRead(p->name + "/grad", p->gradient);
  }
  poplar::Engine engine(graph, {ctx.initialise, prog});
  engine.load(device);
  engine.run(0);

  std::mt19937 rng(3);
  std::normal_distribution<float> normal;
  auto upload = [&](const std::string &name, std::size_t n) {
    std::vector<float> v(n);
    for (auto &e : v)
      e = normal(rng);
    engine.writeTensor(name, v.data(), v.data() + n);
    return Vec(v.begin(), v.end());
  };
  Vec xHost = upload("x", s.T() * s.H);
  Vec gradOutHost = upload("gradOut", s.T() * s.H);
  // Row 0 packs two sequences and a padding token; row 1 is one sequence.
  const std::vector<unsigned> sequenceIds{1, 1, 2, 0, 1, 1, 1, 1};
  std::vector<float> maskHost(s.B * s.S * s.S);
  for (std::size_t b = 0; b < s.B; ++b)
    for (std::size_t i = 0; i < s.S; ++i)
      for (std::size_t j = 0; j < s.S; ++j) {
        const unsigned qi = sequenceIds[b * s.S + i], kj = sequenceIds[b * s.S + j];
        maskHost[(b * s.S + i) * s.S + j] = qi == kj && kj != 0 ? 0.0f : -10000.0f;
      }
  engine.writeTensor("mask", maskHost.data(), maskHost.data() + maskHost.size());
  Vec maskD(maskHost.begin(), maskHost.end());
  engine.run(1);

  auto download = [&](const std::string &name, std::size_t n) {
    std::vector<float> v(n);
    engine.readTensor(name, v.data(), v.data() + n);
    return Vec(v.begin(), v.end());
  };
  std::map<std::string, Vec> params;
  for (const auto &p : ctx.parameters())
    params[p->name] = download(p->name, p->value.numElements());
  ASSERT_EQ(params.size(), 4u);

  const Vec outRef = referenceAttention(s, params, xHost, maskD);
  const Vec outDev = download("out", outRef.size());
  for (std::size_t i = 0; i < outRef.size(); ++i)
    ASSERT_NEAR(outDev[i], outRef[i], 1e-4 * (1 + std::abs(outRef[i]))) << "out[" << i << "]";

  auto loss = [&] {
    const Vec o = referenceAttention(s, params, xHost, maskD);
    double l = 0;
    for (std::size_t i = 0; i < o.size(); ++i)
      l += o[i] * gradOutHost[i];
    return l;
  };
  auto expectGradient = [&](const std::string &what, const Vec &device, const Vec &expected) {
    ASSERT_EQ(device.size(), expected.size()) << what;
    for (std::size_t i = 0; i < expected.size(); ++i)
      ASSERT_NEAR(device[i], expected[i], 2e-4 * (1 + std::abs(expected[i])))
          << what << "[" << i << "]";
  };
  expectGradient("xGrad", download("xGrad", xHost.size()), finiteDifference(xHost, loss));
  for (auto &[name, value] : params)
    expectGradient(name, download(name + "/grad", value.size()), finiteDifference(value, loss));
}

TEST(BertAttention, MaskOfTheWrongShapeNamesTheLayer) {
  poplar::IPUModel ipu;
  ipu.tilesPerIPU = 4;
  poplar::Device device = ipu.createDevice();
  poplar::Graph graph(device.getTarget());
  popops::addCodelets(graph);
  poprand::addCodelets(graph);
  apps::BuildContext ctx(graph, poplar::FLOAT, 1);
  poplar::Tensor seed = graph.addVariable(poplar::UNSIGNED_INT, {2}, "seed");
  graph.setTileMapping(seed, 0);
  SelfAttention attention(ctx, "layer3/attention", {2, 4, 8, 2}, 0.0f, 0.02f, seed);
  poplar::Tensor x = graph.addVariable(poplar::FLOAT, {8, 8}, "x");
  poplar::Tensor mask = graph.addVariable(poplar::FLOAT, {2, 4, 5}, "mask");
  poplar::program::Sequence prog;
  try {
    attention.forward(ctx, x, mask, apps::Mode::Training, prog);
    FAIL() << "expected app_error";
  } catch (const apps::app_error &e) {
    EXPECT_NE(std::string(e.what()).find("layer3/attention"), std::string::npos) << e.what();
  }
}

} // namespace
} // namespace tessera::bert
