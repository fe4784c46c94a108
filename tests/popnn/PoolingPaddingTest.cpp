// popnn::pooling where some windows cover only padding, against reference/Pooling.hpp: MAX gives
// 0 there (as PopLibs' reference does, not -inf), AVG and SUM give 0, and no input gradient flows
// from such a window. 1-D, 2-D (plane vertices) and 3-D (per-offset maps) fields, FLOAT and HALF,
// one tile and 16.
#include <cmath>

#include <popnn/Pooling.hpp>
#include <reference/Pooling.hpp>

#include "PopnnTestHarness.hpp"

using namespace popnn_test;
using popnn::PoolingType;
using popnn::pooling::PoolParams;

namespace {

reference::PoolKind kindOf(PoolingType t) {
  return t == PoolingType::MAX   ? reference::PoolKind::MAX
         : t == PoolingType::AVG ? reference::PoolKind::AVG
                                 : reference::PoolKind::SUM;
}

reference::PoolGeometry geometryOf(const PoolParams &p) {
  reference::PoolGeometry g;
  g.batch = p.batchSize;
  g.channels = p.numChannels;
  g.field = p.inputFieldShape;
  g.kernel = p.kernelShape;
  g.stride.assign(p.stride.begin(), p.stride.end());
  g.padLower.assign(p.inputTruncationOrPaddingLower.begin(),
                    p.inputTruncationOrPaddingLower.end());
  g.padUpper.assign(p.inputTruncationOrPaddingUpper.begin(),
                    p.inputTruncationOrPaddingUpper.end());
  return g;
}

std::vector<std::size_t> withPlanes(const PoolParams &p, const std::vector<std::size_t> &field) {
  std::vector<std::size_t> s{p.batchSize, p.numChannels};
  s.insert(s.end(), field.begin(), field.end());
  return s;
}

struct PaddedCase {
  std::string name;
  PoolParams params;
};

/// Each geometry has at least one output whose window lies wholly in the padding.
std::vector<PaddedCase> paddedCases() {
  std::vector<PaddedCase> c;
  for (auto type : {PoolingType::MAX, PoolingType::AVG, PoolingType::SUM}) {
    const std::string t = popnn::pooling::asString(type);
    // 1-D: padding of 3 below with a kernel of 2 and stride 2: output 0 reads positions -3, -2.
    c.push_back({t + "_1d", PoolParams(type, {5}, {2}, {2}, {3}, {2}, 3, 2, poplar::FLOAT)});
    // 2-D: two padding rows above, and two columns right.
    c.push_back(
        {t + "_2d", PoolParams(type, {3, 4}, {2, 2}, {2, 2}, {2, 0}, {0, 2}, 2, 2, poplar::FLOAT)});
    // 3-D: the first depth slice of outputs sees only padding.
    c.push_back({t + "_3d", PoolParams(type, {2, 3, 3}, {2, 2, 2}, {2, 1, 2}, {2, 0, 1},
                                       {0, 0, 0}, 2, 1, poplar::FLOAT)});
  }
  return c;
}

class PoolingPadding : public testing::TestWithParam<std::tuple<PaddedCase, Layout, bool>> {};

std::string paddedName(const testing::TestParamInfo<std::tuple<PaddedCase, Layout, bool>> &info) {
  return std::get<0>(info.param).name + "_" + layoutName(std::get<1>(info.param)) +
         (std::get<2>(info.param) ? "_half" : "_float");
}

TEST_P(PoolingPadding, WindowsOfPaddingAloneGiveZero) {
  auto [c, layout, half] = GetParam();
  PoolParams p = c.params;
  p.dType = half ? poplar::HALF : poplar::FLOAT;
  const auto g = geometryOf(p);
  const auto x = roundTo(p.dType, randomValues(numElements(withPlanes(p, p.inputFieldShape)), 71));
  const auto want = reference::pool(kindOf(p.poolingType), g, x);
  Harness h(layout);
  auto in = h.input(p.dType, withPlanes(p, p.inputFieldShape), x, "in");
  h.output("out", popnn::pooling::pool(h.graph(), p, in, h.prog()));
  const auto got = h.run()["out"];
  ASSERT_EQ(got.size(), want.size());
  std::size_t paddingOnly = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_TRUE(std::isfinite(got[i])) << "element " << i;
    paddingOnly += want[i] == 0.0;
  }
  EXPECT_GT(paddingOnly, 0u) << "the geometry must have windows of padding alone";
  expectClose(got, want, half ? 2e-3 : 1e-6, half ? 2e-3 : 1e-6, "pool");
}

TEST_P(PoolingPadding, NoGradientFlowsFromWindowsOfPaddingAlone) {
  auto [c, layout, half] = GetParam();
  PoolParams p = c.params;
  p.dType = half ? poplar::HALF : poplar::FLOAT;
  const auto g = geometryOf(p);
  const auto kind = kindOf(p.poolingType);
  const auto inShape = withPlanes(p, p.inputFieldShape);
  const auto outShape = withPlanes(p, p.getOutputFieldShape());
  const auto x = roundTo(p.dType, randomValues(numElements(inShape), 72));
  const auto y = roundTo(p.dType, reference::pool(kind, g, x));
  const auto dy = roundTo(p.dType, randomValues(y.size(), 73, -1, 1));
  Harness h(layout);
  auto in = h.input(p.dType, inShape, x, "in");
  auto pooled = h.input(p.dType, outShape, y, "pooled");
  auto pooledGrad = h.input(p.dType, outShape, dy, "pooledGrad");
  for (bool scaled : {false, true})
    h.output(scaled ? "scaled" : "plain",
             popnn::pooling::poolInputGradient(h.graph(), p, in, pooled, pooledGrad, scaled,
                                               h.prog()));
  auto r = h.run();
  const double tol = half ? 1e-2 : 1e-5;
  for (bool scaled : {false, true})
    expectClose(r[scaled ? "scaled" : "plain"],
                reference::poolInputGradient(kind, g, x, y, dy, scaled), tol, tol,
                scaled ? "scaled input gradient" : "input gradient");
}

INSTANTIATE_TEST_SUITE_P(Windows, PoolingPadding,
                         testing::Combine(testing::ValuesIn(paddedCases()),
                                          testing::Values(Layout::SINGLE_TILE, Layout::MULTI_TILE),
                                          testing::Bool()),
                         paddedName);

} // namespace
