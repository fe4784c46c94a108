// popnn::pooling against a double reference (windows clipped at padding, AVG dividing by the real
// elements in each window), input gradients against central finite differences of it; 1-D, 2-D
// and 3-D fields, overlapping and non-overlapping windows, padding and truncation, global
// average pooling, one tile and 16. Tolerances: FLOAT 1e-5 abs + 1e-5 rel; gradients 1e-4 abs +
// 1e-3 rel; HALF forward 2e-3 abs + 2e-3 rel.
#include <algorithm>
#include <cmath>

#include <popnn/Pooling.hpp>

#include "PopnnTestHarness.hpp"

using namespace popnn_test;
using popnn::PoolingType;
using popnn::pooling::PoolParams;

namespace {

std::vector<double> poolRef(const PoolParams &p, const std::vector<double> &in) {
  const auto outField = p.getOutputFieldShape();
  const std::size_t d = outField.size(), planes = p.batchSize * p.numChannels;
  const std::size_t inPlane = numElements(p.inputFieldShape), outPlane = numElements(outField);
  std::vector<double> out(planes * outPlane);
  for (std::size_t pl = 0; pl < planes; ++pl)
    for (std::size_t o = 0; o < outPlane; ++o) {
      std::vector<std::size_t> oc(d);
      for (std::size_t i = d, rem = o; i-- > 0; rem /= outField[i])
        oc[i] = rem % outField[i];
      double acc = p.poolingType == PoolingType::MAX ? -INFINITY : 0;
      std::size_t count = 0;
      for (std::size_t k = 0; k < numElements(p.kernelShape); ++k) {
        std::size_t flat = 0;
        bool inside = true;
        for (std::size_t i = d, rem = k; i-- > 0; rem /= p.kernelShape[i]) {
          const long pos = static_cast<long>(oc[i] * p.stride[i] + rem % p.kernelShape[i]) -
                           p.inputTruncationOrPaddingLower[i];
          inside &= pos >= 0 && pos < static_cast<long>(p.inputFieldShape[i]);
        }
        if (!inside)
          continue;
        std::size_t mult = 1;
        for (std::size_t i = d, rem = k; i-- > 0; rem /= p.kernelShape[i]) {
          const long pos = static_cast<long>(oc[i] * p.stride[i] + rem % p.kernelShape[i]) -
                           p.inputTruncationOrPaddingLower[i];
          flat += static_cast<std::size_t>(pos) * mult;
          mult *= p.inputFieldShape[i];
        }
        const double v = in[pl * inPlane + flat];
        acc = p.poolingType == PoolingType::MAX ? std::max(acc, v) : acc + v;
        ++count;
      }
      out[pl * outPlane + o] = p.poolingType == PoolingType::AVG ? acc / count : acc;
    }
  return out;
}

struct Case {
  std::string name;
  PoolParams params;
};

std::vector<Case> cases() {
  std::vector<Case> c;
  for (auto type : {PoolingType::MAX, PoolingType::AVG, PoolingType::SUM}) {
    const std::string t = popnn::pooling::asString(type);
    c.push_back({t + "_3x3s2pad1",
                 PoolParams(type, {7, 6}, {3, 3}, {2, 2}, {1, 1}, {1, 0}, 3, 2, poplar::FLOAT)});
    c.push_back({t + "_2x2s2",
                 PoolParams(type, {6, 4}, {2, 2}, {2, 2}, {0, 0}, {0, 0}, 3, 2, poplar::FLOAT)});
    c.push_back({t + "_truncated",
                 PoolParams(type, {8, 5}, {2, 3}, {1, 2}, {-1, 0}, {0, -1}, 2, 2, poplar::FLOAT)});
    c.push_back({t + "_1d", PoolParams(type, {9}, {3}, {2}, {1}, {1}, 4, 2, poplar::FLOAT)});
    c.push_back({t + "_3d", PoolParams(type, {4, 3, 5}, {2, 2, 3}, {1, 1, 2}, {0, 1, 1}, {0, 0, 1},
                                       2, 1, poplar::FLOAT)});
  }
  c.push_back({"GlobalAvg", PoolParams(PoolingType::AVG, {5, 6}, {5, 6}, {1, 1}, {0, 0}, {0, 0}, 4,
                                       3, poplar::FLOAT)});
  return c;
}

std::vector<std::size_t> inShape(const PoolParams &p) {
  std::vector<std::size_t> s{p.batchSize, p.numChannels};
  s.insert(s.end(), p.inputFieldShape.begin(), p.inputFieldShape.end());
  return s;
}

std::vector<std::size_t> outShape(const PoolParams &p) {
  std::vector<std::size_t> s{p.batchSize, p.numChannels};
  const auto f = p.getOutputFieldShape();
  s.insert(s.end(), f.begin(), f.end());
  return s;
}

class Pooling : public testing::TestWithParam<std::tuple<Case, Layout>> {};

std::string name(const testing::TestParamInfo<std::tuple<Case, Layout>> &info) {
  return std::get<0>(info.param).name + "_" + layoutName(std::get<1>(info.param));
}

TEST_P(Pooling, ForwardMatchesReference) {
  const auto &[c, layout] = GetParam();
  const auto x = roundTo(poplar::FLOAT, randomValues(numElements(inShape(c.params)), 21));
  Harness h(layout);
  auto in = h.input(poplar::FLOAT, inShape(c.params), x, "in");
  auto out = popnn::pooling::pool(h.graph(), c.params, in, h.prog());
  ASSERT_EQ(out.shape(), outShape(c.params));
  h.output("out", out);
  expectClose(h.run()["out"], poolRef(c.params, x), 1e-5, 1e-5, "pool");
}

TEST_P(Pooling, HalfForwardMatchesReference) {
  auto [c, layout] = GetParam();
  c.params.dType = poplar::HALF;
  const auto x = roundTo(poplar::HALF, randomValues(numElements(inShape(c.params)), 22));
  Harness h(layout);
  auto in = h.input(poplar::HALF, inShape(c.params), x, "in");
  auto out = popnn::pooling::pool(h.graph(), c.params, in, h.prog());
  h.output("out", out);
  expectClose(h.run()["out"], poolRef(c.params, x), 2e-3, 2e-3, "half pool");
}

/// poolInputGradient (and, but for MAX, the overload without the forward tensors) against
/// central finite differences of the reference, in `type`.
void checkInputGradient(const Case &c, Layout layout, poplar::Type type, double absTol,
                        double relTol) {
  PoolParams p = c.params;
  p.dType = type;
  const auto x = roundTo(type, randomValues(numElements(inShape(p)), 23));
  const auto y = roundTo(type, poolRef(p, x));
  const auto w = roundTo(type, randomValues(y.size(), 24, -1, 1));
  Harness h(layout);
  auto in = h.input(type, inShape(p), x, "in");
  auto pooled = h.input(type, outShape(p), y, "pooled");
  auto g = h.input(type, outShape(p), w, "pooledGrad");
  h.output("dx", popnn::pooling::poolInputGradient(h.graph(), p, in, pooled, g, false, h.prog()));
  if (p.poolingType != PoolingType::MAX)
    h.output("dx2", popnn::pooling::poolInputGradient(h.graph(), p, 1, g, h.prog()));
  auto r = h.run();
  const auto want = finiteDifference(
      [&](const std::vector<double> &v) { return dot(w, poolRef(p, v)); }, x, 1e-5);
  expectClose(r["dx"], want, absTol, relTol, "input gradient");
  if (p.poolingType != PoolingType::MAX)
    expectClose(r["dx2"], want, absTol, relTol, "input gradient (no forward tensors)");
}

TEST_P(Pooling, InputGradientMatchesFiniteDifference) {
  const auto &[c, layout] = GetParam();
  checkInputGradient(c, layout, poplar::FLOAT, 1e-4, 1e-3);
}

TEST_P(Pooling, HalfInputGradientMatchesFiniteDifference) {
  // HALF rounds after every accumulation; values in [0, 1) and at most 8 windows per element
  // keep the error near 8 half ulps of 1.
  const auto &[c, layout] = GetParam();
  checkInputGradient(c, layout, poplar::HALF, 1e-2, 1e-2);
}

INSTANTIATE_TEST_SUITE_P(Windows, Pooling,
                         testing::Combine(testing::ValuesIn(cases()),
                                          testing::Values(Layout::SINGLE_TILE, Layout::MULTI_TILE)),
                         name);

TEST(PoolingMax, ScaledGradientSplitsTies) {
  // Every window of this 1-D max pool holds two equal maxima: each gets half the gradient.
  const PoolParams p(PoolingType::MAX, {4}, {2}, {2}, {0}, {0}, 1, 1, poplar::FLOAT);
  for (bool overlapping : {false, true}) {
    PoolParams q = p;
    if (overlapping)
      q.inputTruncationOrPaddingUpper = {0}, q.kernelShape = {2}, q.stride = {1};
    Harness h(Layout::MULTI_TILE);
    const std::vector<double> x{3, 3, 5, 5};
    const auto y = poolRef(q, x);
    auto in = h.input(poplar::FLOAT, {1, 1, 4}, x, "in");
    auto pooled = h.input(poplar::FLOAT, {1, 1, y.size()}, y, "pooled");
    auto g = h.input(poplar::FLOAT, {1, 1, y.size()}, std::vector<double>(y.size(), 1.0), "g");
    h.output("dx", popnn::pooling::poolInputGradient(h.graph(), q, in, pooled, g, true, h.prog()));
    // overlapping windows [3,3] [3,5] [5,5]: 0.5+1·0 … computed by hand
    const std::vector<double> want = overlapping ? std::vector<double>{0.5, 0.5, 1.5, 0.5}
                                                 : std::vector<double>{0.5, 0.5, 0.5, 0.5};
    expectClose(h.run()["dx"], want, 1e-6, 0, overlapping ? "overlapping" : "non-overlapping");
  }
}

} // namespace
