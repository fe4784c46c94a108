// A 2-layer MLP (2 -> 16 ReLU -> 2 softmax) trained on the device: forward, softmax cross-entropy
// deltas from popnn::calcLoss, backward with nonLinearityInputGradient, SGD updates, 300 steps in
// one Repeat program. Dense layers are popops broadcast products + reductions. The data are
// linearly separable with a margin (fixed seed); the mean loss must fall from ~ln 2 to below
// 0.1 and every sample must end up classified correctly.
#include <cmath>
#include <iostream>

#include <popnn/Loss.hpp>
#include <popnn/NonLinearity.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>
#include <popops/Zero.hpp>

#include "PopnnTestHarness.hpp"

using namespace popnn_test;
using namespace popops::expr;
using poplar::Tensor;

namespace {

constexpr std::size_t N = 64, D = 2, H = 16, K = 2;
constexpr unsigned kSteps = 300;
constexpr float kLearningRate = 0.5f;

/// out[n][j] = sum_i a[n][i] * w[i][j] (+ nothing): broadcast product then reduction.
Tensor dense(poplar::Graph &g, const Tensor &a, const Tensor &w, poplar::program::Sequence &prog,
             const std::string &name) {
  const auto prod = popops::map(
      g, _1 * _2, {a.reshape({a.dim(0), a.dim(1), 1}), w.reshape({1, w.dim(0), w.dim(1)})}, prog,
      name + "/products");
  return popops::reduce(g, prod, {1}, popops::Operation::ADD, prog, name + "/sum");
}

/// sum over n of a[n][i] * b[n][j]: the weight gradient of a dense layer.
Tensor outerSum(poplar::Graph &g, const Tensor &a, const Tensor &b, poplar::program::Sequence &prog,
                const std::string &name) {
  const auto prod = popops::map(
      g, _1 * _2, {a.reshape({a.dim(0), a.dim(1), 1}), b.reshape({b.dim(0), 1, b.dim(1)})}, prog,
      name + "/products");
  return popops::reduce(g, prod, {0}, popops::Operation::ADD, prog, name + "/sum");
}

Tensor variable(poplar::Graph &g, std::vector<std::size_t> shape, const std::string &name) {
  auto t = g.addVariable(poplar::FLOAT, shape, name);
  poputil::mapTensorLinearly(g, t, 1, 1);
  return t;
}

void sgd(poplar::Graph &g, const Tensor &param, const Tensor &grad,
         poplar::program::Sequence &prog) {
  popops::mapInPlace(g, _1 - kLearningRate * _2, {param, grad}, prog, "sgd");
}

TEST(MlpTraining, LossFallsBelowBoundOnSeparableData) {
  // Data: label = [x0 + 0.5 x1 > 0], points within 0.3 of the boundary dropped.
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> u(-2, 2);
  std::vector<float> x, labels;
  while (labels.size() < N) {
    const double a = u(gen), b = u(gen), s = a + 0.5 * b;
    if (std::abs(s) < 0.3)
      continue;
    x.push_back(static_cast<float>(a));
    x.push_back(static_cast<float>(b));
    labels.push_back(s > 0 ? 1.0f : 0.0f);
  }
  std::vector<unsigned> labelValues(labels.begin(), labels.end());
  std::normal_distribution<double> init(0, 0.1);
  auto randomInit = [&](std::size_t n) {
    std::vector<float> v(n);
    for (auto &e : v)
      e = static_cast<float>(init(gen));
    return v;
  };
  const auto w1Init = randomInit(D * H), w2Init = randomInit(H * K);

  poplar::Device device = makeDevice(Layout::MULTI_TILE);
  poplar::Graph g(device.getTarget());
  popnn::addCodelets(g);
  auto xs = variable(g, {N, D}, "x");
  auto ys = g.addVariable(poplar::UNSIGNED_INT, {N}, "labels");
  poputil::mapTensorLinearly(g, ys, 1, 1);
  auto w1 = variable(g, {D, H}, "w1"), b1 = variable(g, {H}, "b1");
  auto w2 = variable(g, {H, K}, "w2"), b2 = variable(g, {K}, "b2");
  auto loss = variable(g, {N}, "loss"), deltas = variable(g, {N, K}, "deltas");
  auto numCorrect = g.addVariable(poplar::UNSIGNED_INT, {1}, "numCorrect");
  g.setTileMapping(numCorrect, 0);
  auto deltasScale = g.addConstant<float>(poplar::FLOAT, {1}, 1.0f / N, "deltasScale");
  auto one = g.addConstant<float>(poplar::FLOAT, {1}, 1.0f, "one");
  g.setTileMapping(deltasScale, 0);
  g.setTileMapping(one, 0);

  poplar::program::Sequence step;
  auto z1 = dense(g, xs, w1, step, "layer1");
  auto h = popops::map(g, Relu(_1 + _2), {z1, b1}, step, "layer1/relu");
  auto logits = popops::map(g, _1 + _2, {dense(g, h, w2, step, "layer2"), b2}, step, "bias2");
  auto probs = popnn::nonLinearity(g, popnn::NonLinearityType::SOFTMAX, logits, step);
  // deltas = d(mean loss)/d logits. calcLoss adds to numCorrect, so each step zeroes it first
  // and the count read after training is the last step's.
  popops::zero(g, numCorrect, step, "numCorrect/zero");
  step.add(popnn::calcLoss(g, probs, ys, loss, deltas, deltasScale, one, numCorrect,
                           popnn::CROSS_ENTROPY_LOSS));
  auto dW2 = outerSum(g, h, deltas, step, "dW2");
  auto dB2 = popops::reduce(g, deltas, {0}, popops::Operation::ADD, step, "dB2");
  auto dH =
      popops::reduce(g,
                     popops::map(g, _1 * _2, {deltas.reshape({N, 1, K}), w2.reshape({1, H, K})},
                                 step, "dH/products"),
                     {2}, popops::Operation::ADD, step, "dH");
  auto dZ1 = popnn::nonLinearityInputGradient(g, popnn::NonLinearityType::RELU, h, dH, step);
  auto dW1 = outerSum(g, xs, dZ1, step, "dW1");
  auto dB1 = popops::reduce(g, dZ1, {0}, popops::Operation::ADD, step, "dB1");
  sgd(g, w1, dW1, step);
  sgd(g, b1, dB1, step);
  sgd(g, w2, dW2, step);
  sgd(g, b2, dB2, step);

  for (auto [name, t] :
       {std::pair{"x", xs}, {"labels", ys}, {"w1", w1}, {"b1", b1}, {"w2", w2}, {"b2", b2}})
    g.createHostWrite(name, t);
  g.createHostRead("loss", loss);
  g.createHostRead("numCorrect", numCorrect);
  // Program 0: one step (measures the initial loss); program 1: the rest of training.
  poplar::Engine engine(g, {step, poplar::program::Repeat(kSteps - 1, step)});
  engine.load(device);
  const std::vector<float> zerosH(H, 0.0f), zerosK(K, 0.0f);
  engine.writeTensor("x", x.data(), x.data() + x.size());
  engine.writeTensor("labels", labelValues.data(), labelValues.data() + labelValues.size());
  engine.writeTensor("w1", w1Init.data(), w1Init.data() + w1Init.size());
  engine.writeTensor("w2", w2Init.data(), w2Init.data() + w2Init.size());
  engine.writeTensor("b1", zerosH.data(), zerosH.data() + H);
  engine.writeTensor("b2", zerosK.data(), zerosK.data() + K);
  auto meanLoss = [&] {
    std::vector<float> l(N);
    engine.readTensor("loss", l.data(), l.data() + N);
    double s = 0;
    for (float v : l)
      s += v;
    return s / N;
  };
  engine.run(0);
  const double initial = meanLoss();
  engine.run(1);
  const double final = meanLoss();
  unsigned correct = 0;
  engine.readTensor("numCorrect", &correct, &correct + 1);
  std::cout << "[ MLP      ] mean loss " << initial << " -> " << final << " after " << kSteps
            << " steps, " << correct << "/" << N << " correct\n";
  EXPECT_GT(initial, 0.5);
  EXPECT_LT(final, 0.1) << "initial mean loss " << initial;
  EXPECT_EQ(correct, N) << "final mean loss " << final;
}

} // namespace
