// The compute-set forms of popnn::nonLinearityInPlace and nonLinearityInputGradient against
// reference/NonLinearity.hpp, for every element-wise type, FLOAT and HALF, one tile and 16; two
// non-linearities sharing one compute set; the softmax family refused naming the type.
#include <popnn/NonLinearity.hpp>
#include <poputil/exceptions.hpp>
#include <reference/NonLinearity.hpp>

#include "PopnnTestHarness.hpp"

using namespace popnn_test;
using popnn::NonLinearityType;
using reference::ElementWiseNonLinearity;

namespace {

struct CsCase {
  NonLinearityType type;
  ElementWiseNonLinearity ref;
  bool half;
  Layout layout;
};

std::vector<CsCase> csCases() {
  const std::pair<NonLinearityType, ElementWiseNonLinearity> types[] = {
      {NonLinearityType::SIGMOID, ElementWiseNonLinearity::SIGMOID},
      {NonLinearityType::HARD_SIGMOID, ElementWiseNonLinearity::HARD_SIGMOID},
      {NonLinearityType::RELU, ElementWiseNonLinearity::RELU},
      {NonLinearityType::TANH, ElementWiseNonLinearity::TANH},
      {NonLinearityType::GELU, ElementWiseNonLinearity::GELU},
      {NonLinearityType::GELU_ERF, ElementWiseNonLinearity::GELU_ERF},
      {NonLinearityType::SWISH, ElementWiseNonLinearity::SWISH}};
  std::vector<CsCase> cases;
  for (const auto &[t, r] : types)
    for (bool half : {false, true})
      for (auto layout : {Layout::SINGLE_TILE, Layout::MULTI_TILE})
        cases.push_back({t, r, half, layout});
  return cases;
}

class NonLinearityComputeSet : public testing::TestWithParam<CsCase> {};

std::string csName(const testing::TestParamInfo<CsCase> &info) {
  std::string name = popnn::asString(info.param.type);
  return name + (info.param.half ? "_half_" : "_float_") + layoutName(info.param.layout);
}

/// Whether the gradient takes the forward output (else the input).
bool gradientTakesOutput(NonLinearityType t) {
  return t == NonLinearityType::SIGMOID || t == NonLinearityType::HARD_SIGMOID ||
         t == NonLinearityType::RELU || t == NonLinearityType::TANH;
}

TEST_P(NonLinearityComputeSet, ForwardAndGradientMatchReference) {
  const auto c = GetParam();
  const poplar::Type type = c.half ? poplar::HALF : poplar::FLOAT;
  const std::vector<std::size_t> shape{6, 37};
  const auto x = roundTo(type, randomValues(numElements(shape), 501, -3, 3));
  const auto g = roundTo(type, randomValues(x.size(), 502));
  std::vector<double> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    y[i] = reference::nonLinearity(c.ref, x[i]);
  const auto act = gradientTakesOutput(c.type) ? roundTo(type, y) : x;
  Harness h(c.layout);
  auto &graph = h.graph();
  auto t = h.input(type, shape, x, "x");
  auto a = h.input(type, shape, act, "act");
  auto dy = h.input(type, shape, g, "dy");
  poplar::ComputeSet cs = graph.addComputeSet("both");
  float scaling = 0.0f;
  popnn::nonLinearityInPlace(graph, c.type, t, scaling, cs);
  EXPECT_EQ(scaling, 1.0f);
  auto dx = popnn::nonLinearityInputGradient(graph, c.type, a, dy, cs);
  EXPECT_EQ(dx.shape(), a.shape());
  h.prog().add(poplar::program::Execute(cs));
  h.output("y", t);
  h.output("dx", dx);
  auto r = h.run();
  std::vector<double> dxRef(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    dxRef[i] = reference::nonLinearityGradient(c.ref, act[i], g[i]);
  const double tol = c.half ? 4e-3 : 2e-5;
  expectClose(r["y"], y, tol, tol, "forward");
  expectClose(r["dx"], dxRef, tol, c.half ? 1e-2 : 1e-4, "input gradient");
}

INSTANTIATE_TEST_SUITE_P(Types, NonLinearityComputeSet, testing::ValuesIn(csCases()), csName);

TEST(NonLinearityComputeSetErrors, SoftmaxIsRefusedNamingTheType) {
  Harness h(Layout::SINGLE_TILE);
  auto t = h.graph().addVariable(poplar::FLOAT, {4, 4}, "t");
  h.graph().setTileMapping(t, 0);
  poplar::ComputeSet cs = h.graph().addComputeSet("cs");
  for (auto type : {NonLinearityType::SOFTMAX, NonLinearityType::SOFTMAX_STABLE,
                    NonLinearityType::SOFTMAX_SCALED}) {
    EXPECT_THROW(popnn::nonLinearityInPlace(h.graph(), type, t, cs), poputil::poplibs_error);
    try {
      popnn::nonLinearityInputGradient(h.graph(), type, t, t, cs);
      ADD_FAILURE() << "expected poplibs_error";
    } catch (const poputil::poplibs_error &e) {
      EXPECT_NE(std::string(e.what()).find("nonLinearityType"), std::string::npos) << e.what();
    }
  }
}

} // namespace
