// popnn non-linearities and softmax: forward against double references, input gradients against
// central finite differences of those references, on one tile and spread over 16.
// Tolerances: FLOAT forward 1e-5 abs + 1e-5 rel; gradients 1e-4 abs + 1e-3 rel (the FD step is
// 1e-4 in double, so FD error is ~1e-8); HALF forward 2e-3 abs + 2e-3 rel.
#include <cctype>
#include <algorithm>
#include <cmath>

#include <popnn/LogSoftmax.hpp>
#include <popnn/NonLinearity.hpp>

#include "PopnnTestHarness.hpp"

using namespace popnn_test;
using popnn::NonLinearityType;

namespace {

double elementRef(NonLinearityType t, double x) {
  switch (t) {
  case NonLinearityType::SIGMOID:
    return 1 / (1 + std::exp(-x));
  case NonLinearityType::HARD_SIGMOID:
    return std::clamp(0.2 * x + 0.5, 0.0, 1.0);
  case NonLinearityType::RELU:
    return std::max(0.0, x);
  case NonLinearityType::TANH:
    return std::tanh(x);
  case NonLinearityType::GELU:
    return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
  case NonLinearityType::GELU_ERF:
    return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  case NonLinearityType::SWISH:
    return x / (1 + std::exp(-x));
  default:
    return 0;
  }
}

bool isSoftmax(NonLinearityType t) {
  return t == NonLinearityType::SOFTMAX || t == NonLinearityType::SOFTMAX_STABLE ||
         t == NonLinearityType::SOFTMAX_SCALED || t == NonLinearityType::LOG_SOFTMAX;
}

/// Reference of the whole op on a row-major tensor whose innermost dimension is `cols`.
std::vector<double> reference(NonLinearityType t, const std::vector<double> &x, std::size_t cols,
                              bool applyScaling = true) {
  std::vector<double> y(x.size());
  if (!isSoftmax(t)) {
    for (std::size_t i = 0; i < x.size(); ++i)
      y[i] = elementRef(t, x[i]);
    return y;
  }
  for (std::size_t r = 0; r < x.size() / cols; ++r) {
    double m = -INFINITY, s = 0;
    for (std::size_t c = 0; c < cols; ++c)
      m = std::max(m, x[r * cols + c]);
    for (std::size_t c = 0; c < cols; ++c)
      s += std::exp(x[r * cols + c] - m);
    for (std::size_t c = 0; c < cols; ++c) {
      const double v = x[r * cols + c] - m;
      y[r * cols + c] = t == NonLinearityType::LOG_SOFTMAX ? v - std::log(s) : std::exp(v) / s;
      if (t == NonLinearityType::SOFTMAX_SCALED && applyScaling)
        y[r * cols + c] *= SOFTMAX_SCALING;
    }
  }
  return y;
}

bool gradTakesInput(NonLinearityType t) {
  return t == NonLinearityType::GELU || t == NonLinearityType::GELU_ERF ||
         t == NonLinearityType::SWISH;
}

const NonLinearityType kAll[] = {NonLinearityType::SIGMOID,        NonLinearityType::HARD_SIGMOID,
                                 NonLinearityType::RELU,           NonLinearityType::TANH,
                                 NonLinearityType::GELU,           NonLinearityType::GELU_ERF,
                                 NonLinearityType::SWISH,          NonLinearityType::SOFTMAX,
                                 NonLinearityType::SOFTMAX_STABLE, NonLinearityType::SOFTMAX_SCALED,
                                 NonLinearityType::LOG_SOFTMAX};

struct Case {
  NonLinearityType type;
  Layout layout;
};

std::string caseName(const testing::TestParamInfo<Case> &info) {
  std::string name = popnn::asString(info.param.type);
  for (char &ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)))
      ch = '_';
  return name + "_" + layoutName(info.param.layout);
}

std::vector<Case> allCases() {
  std::vector<Case> cases;
  for (auto t : kAll)
    for (auto l : {Layout::SINGLE_TILE, Layout::MULTI_TILE})
      cases.push_back({t, l});
  return cases;
}

class NonLinearity : public testing::TestWithParam<Case> {};

TEST_P(NonLinearity, ForwardMatchesReference) {
  const auto [type, layout] = GetParam();
  const std::vector<std::size_t> shape{3, 5, 7};
  const auto x = roundTo(poplar::FLOAT, randomValues(numElements(shape), 11, -3, 3));
  Harness h(layout);
  auto t = h.input(poplar::FLOAT, shape, x, "x");
  float scaling = 0;
  auto y = popnn::nonLinearity(h.graph(), type, t, scaling, h.prog());
  EXPECT_EQ(y.shape(), shape);
  h.output("y", y);
  const auto got = h.run()["y"];
  const double rtol = type == NonLinearityType::SOFTMAX_SCALED ? 1e-5 : 1e-5;
  expectClose(got, reference(type, x, 7),
              1e-5 * (type == NonLinearityType::SOFTMAX_SCALED ? SOFTMAX_SCALING : 1), rtol,
              "forward");
  EXPECT_EQ(scaling, type == NonLinearityType::SOFTMAX_SCALED ? SOFTMAX_SCALING : 1.0f);
}

TEST_P(NonLinearity, InPlaceMatchesReference) {
  const auto [type, layout] = GetParam();
  const std::vector<std::size_t> shape{4, 9};
  const auto x = roundTo(poplar::FLOAT, randomValues(numElements(shape), 12, -3, 3));
  Harness h(layout);
  auto t = h.input(poplar::FLOAT, shape, x, "x");
  popnn::nonLinearityInPlace(h.graph(), type, t, h.prog());
  h.output("y", t);
  const double scale = type == NonLinearityType::SOFTMAX_SCALED ? SOFTMAX_SCALING : 1;
  expectClose(h.run()["y"], reference(type, x, 9), 1e-5 * scale, 1e-5, "in place");
}

TEST_P(NonLinearity, HalfForwardMatchesReference) {
  const auto [type, layout] = GetParam();
  const std::vector<std::size_t> shape{6, 10};
  const auto x = roundTo(poplar::HALF, randomValues(numElements(shape), 13, -3, 3));
  Harness h(layout);
  auto t = h.input(poplar::HALF, shape, x, "x");
  auto y = popnn::nonLinearity(h.graph(), type, t, h.prog());
  EXPECT_EQ(y.elementType(), poplar::HALF);
  h.output("y", y);
  const double scale = type == NonLinearityType::SOFTMAX_SCALED ? SOFTMAX_SCALING : 1;
  expectClose(h.run()["y"], reference(type, x, 10), 2e-3 * scale, 2e-3, "half forward");
}

TEST_P(NonLinearity, InputGradientMatchesFiniteDifference) {
  const auto [type, layout] = GetParam();
  const std::size_t rows = 3, cols = 6;
  // Keep RELU / HARD_SIGMOID inputs away from their kinks so the FD is exact.
  auto x = randomValues(rows * cols, 14, -3, 3);
  for (auto &v : x)
    if (std::abs(v) < 0.05 || std::abs(std::abs(v) - 2.5) < 0.05)
      v += 0.2;
  x = roundTo(poplar::FLOAT, x);
  const auto w = roundTo(poplar::FLOAT, randomValues(rows * cols, 15, -1, 1));
  // The gradient of the unscaled op: SOFTMAX_SCALED's act is the unscaled softmax output.
  const auto y = reference(type, x, cols, false);
  const auto act = gradTakesInput(type) ? x : roundTo(poplar::FLOAT, y);
  Harness h(layout);
  auto a = h.input(poplar::FLOAT, {rows, cols}, act, "act");
  auto g = h.input(poplar::FLOAT, {rows, cols}, w, "outGrad");
  auto dx = popnn::nonLinearityInputGradient(h.graph(), type, a, g, h.prog());
  h.output("dx", dx);
  const auto want = finiteDifference(
      [&](const std::vector<double> &v) { return dot(w, reference(type, v, cols, false)); }, x);
  expectClose(h.run()["dx"], want, 1e-4, 1e-3, "input gradient");
}

INSTANTIATE_TEST_SUITE_P(AllTypes, NonLinearity, testing::ValuesIn(allCases()), caseName);

TEST(Softmax, StableForHugeInputs) {
  Harness h(Layout::MULTI_TILE);
  const std::vector<double> x{1000, 1001, 1002, -1000, 0, 1000};
  auto t = h.input(poplar::FLOAT, {2, 3}, x, "x");
  h.output("y", popnn::nonLinearity(h.graph(), NonLinearityType::SOFTMAX, t, h.prog()));
  h.output("ly", popnn::logSoftmax(h.graph(), t, h.prog()));
  auto r = h.run();
  expectClose(r["y"], reference(NonLinearityType::SOFTMAX, x, 3), 1e-6, 1e-5, "softmax");
  expectClose(r["ly"], reference(NonLinearityType::LOG_SOFTMAX, x, 3), 1e-4, 1e-5, "logSoftmax");
}

// PopLibs declares named forms of nonLinearity (sigmoid, relu, tanh, gelu, softmax,
// softmaxStable, scaledSoftmaxStable), each returning a new tensor or, as NAMEInPlace, writing
// into its argument; scaledSoftmaxStable reports SOFTMAX_SCALING, the others 1.
TEST(NamedNonLinearities, NewAndInPlaceFormsMatchReference) {
  Harness h(Layout::MULTI_TILE);
  const auto x = roundTo(poplar::FLOAT, randomValues(12, 9));
  const std::pair<NonLinearityType, std::string> kinds[] = {
      {NonLinearityType::SIGMOID, "sigmoid"}, {NonLinearityType::RELU, "relu"},
      {NonLinearityType::TANH, "tanh"},       {NonLinearityType::GELU, "gelu"},
      {NonLinearityType::SOFTMAX, "softmax"}, {NonLinearityType::SOFTMAX_STABLE, "stable"}};
  auto &g = h.graph();
  auto in = [&](const std::string &name) { return h.input(poplar::FLOAT, {3, 4}, x, name); };
  h.output("sigmoid", popnn::sigmoid(g, in("x0"), h.prog()));
  h.output("relu", popnn::relu(g, in("x1"), h.prog()));
  h.output("tanh", popnn::tanh(g, in("x2"), h.prog()));
  h.output("gelu", popnn::gelu(g, in("x3"), h.prog()));
  auto s = in("x4");
  popnn::softmaxInPlace(g, s, h.prog());
  h.output("softmax", s);
  float scaling = 0;
  auto st = in("x5");
  popnn::softmaxStableInPlace(g, st, scaling, h.prog());
  EXPECT_EQ(scaling, 1.0f);
  h.output("stable", st);
  auto scaled = popnn::scaledSoftmaxStable(g, in("x6"), scaling, h.prog());
  EXPECT_EQ(scaling, SOFTMAX_SCALING);
  h.output("scaled", scaled);
  auto r = h.run();
  for (const auto &[type, name] : kinds)
    expectClose(r[name], reference(type, x, 4), 1e-5, 1e-5, name);
  expectClose(r["scaled"], reference(NonLinearityType::SOFTMAX_SCALED, x, 4), 1e-2, 1e-5, "scaled");
}

TEST(Softmax, LogSoftmaxInPlaceOfRank1) {
  Harness h(Layout::SINGLE_TILE);
  const auto x = roundTo(poplar::FLOAT, randomValues(17, 3));
  auto t = h.input(poplar::FLOAT, {17}, x, "x");
  popnn::logSoftmaxInPlace(h.graph(), t, h.prog());
  h.output("y", t);
  expectClose(h.run()["y"], reference(NonLinearityType::LOG_SOFTMAX, x, 17), 1e-5, 1e-5, "y");
}

} // namespace
