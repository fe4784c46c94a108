// popnn::experimental ROIAlign against reference/ROIAlign.hpp: forward and input gradient,
// aligned and not, regions partly off the map, smaller than a pixel, and with a batch index out
// of range; FLOAT and HALF; one tile and 16; 1 and 2 host threads; every error path.
#include <popnn/experimental/ROIAlign.hpp>
#include <poputil/exceptions.hpp>
#include <reference/Common.hpp>
#include <reference/ROIAlign.hpp>

#include "PopnnTestHarness.hpp"

using namespace popnn_test;
using popnn::experimental::roiAlignParams;

namespace {

struct RoiCase {
  bool aligned, half;
  Layout layout;
};

const reference::RoiAlignGeometry kGeometry{2, 3, 6, 7, 3, 2, 2, false, 0.5};

/// [x1, y1, x2, y2] in image coordinates (the map is half the image: spatialScale 0.5).
const std::vector<double> kRois{1.0,  2.0, 9.0,  11.0, // inside
                                -3.0, 4.0, 6.0,  15.0, // partly left of and below the map
                                5.0,  5.0, 5.5,  5.8,  // smaller than a map pixel
                                0.0,  0.0, 14.0, 12.0, // the whole map
                                2.0,  2.0, 8.0,  8.0}; // batch index out of range
const std::vector<int> kBatchIndex{0, 1, 1, 0, 5};

reference::RoiAlignGeometry geometry(bool aligned) {
  auto g = kGeometry;
  g.aligned = aligned;
  return g;
}

std::map<std::string, std::vector<double>> runRoiAlign(const RoiCase &c,
                                                       const std::vector<double> &data,
                                                       const std::vector<double> &topGrad,
                                                       unsigned threads = 1) {
  const auto g = geometry(c.aligned);
  const poplar::Type type = c.half ? poplar::HALF : poplar::FLOAT;
  Harness h(c.layout);
  auto x = h.input(type, {g.N, g.C, g.H, g.W}, data, "data");
  auto rois = h.input(type, {kBatchIndex.size(), 4}, kRois, "rois");
  std::vector<double> idx(kBatchIndex.begin(), kBatchIndex.end());
  auto batchIndex = h.input(poplar::INT, {kBatchIndex.size()}, idx, "batchIndex");
  auto dy = h.input(type, {kBatchIndex.size(), g.C, g.pooledH, g.pooledW}, topGrad, "topGrad");
  const roiAlignParams params(g.samplingRatio, g.pooledH, g.pooledW, c.aligned,
                              static_cast<float>(g.spatialScale));
  auto y = popnn::experimental::roiAlignFwd(h.graph(), h.prog(), x, rois, batchIndex, params);
  EXPECT_EQ(y.shape(), (std::vector<std::size_t>{kBatchIndex.size(), g.C, g.pooledH, g.pooledW}));
  auto dx = popnn::experimental::roiAlignInputGradient(h.graph(), h.prog(), x, rois, batchIndex,
                                                       dy, params);
  EXPECT_EQ(dx.shape(), x.shape());
  h.output("y", y);
  h.output("dx", dx);
  poplar::OptionFlags engineOptions;
  engineOptions.set("target.hostThreads", std::to_string(threads));
  return h.run(1, engineOptions);
}

class ROIAlign : public testing::TestWithParam<RoiCase> {};

std::string roiName(const testing::TestParamInfo<RoiCase> &info) {
  return std::string(info.param.aligned ? "aligned" : "unaligned") +
         (info.param.half ? "_half_" : "_float_") + layoutName(info.param.layout);
}

TEST_P(ROIAlign, ForwardAndInputGradientMatchReference) {
  const auto c = GetParam();
  const auto g = geometry(c.aligned);
  const poplar::Type type = c.half ? poplar::HALF : poplar::FLOAT;
  const auto data = roundTo(type, randomValues(g.N * g.C * g.H * g.W, 401));
  const auto topGrad =
      roundTo(type, randomValues(kBatchIndex.size() * g.C * g.pooledH * g.pooledW, 402));
  auto r = runRoiAlign(c, data, topGrad);
  const auto rois = roundTo(type, kRois);
  const double tol = c.half ? 1e-2 : 1e-5;
  expectClose(r["y"], reference::roiAlign(g, data, rois, kBatchIndex), tol, tol, "forward");
  expectClose(r["dx"], reference::roiAlignInputGradient(g, rois, kBatchIndex, topGrad), tol, tol,
              "input gradient");
}

INSTANTIATE_TEST_SUITE_P(Regions, ROIAlign,
                         testing::Values(RoiCase{false, false, Layout::SINGLE_TILE},
                                         RoiCase{false, false, Layout::MULTI_TILE},
                                         RoiCase{true, false, Layout::MULTI_TILE},
                                         RoiCase{true, true, Layout::MULTI_TILE},
                                         RoiCase{false, true, Layout::SINGLE_TILE}),
                         roiName);

TEST(ROIAlignReference, InputGradientIsTheTransposeOfTheForward) {
  const auto g = geometry(true);
  const auto data = randomValues(g.N * g.C * g.H * g.W, 411);
  const auto w = randomValues(kBatchIndex.size() * g.C * g.pooledH * g.pooledW, 412);
  const auto fd = reference::finiteDifference(
      [&](const std::vector<double> &x) {
        return reference::dot(w, reference::roiAlign(g, x, kRois, kBatchIndex));
      },
      data, 1e-4);
  const auto grad = reference::roiAlignInputGradient(g, kRois, kBatchIndex, w);
  for (std::size_t i = 0; i < fd.size(); ++i)
    EXPECT_NEAR(grad[i], fd[i], 1e-7) << i;
}

TEST(ROIAlignThreads, ResultsAreBitIdenticalForOneAndTwoHostThreads) {
  const auto g = geometry(false);
  const auto data = roundTo(poplar::FLOAT, randomValues(g.N * g.C * g.H * g.W, 421));
  const auto topGrad = roundTo(
      poplar::FLOAT, randomValues(kBatchIndex.size() * g.C * g.pooledH * g.pooledW, 422));
  const RoiCase c{false, false, Layout::MULTI_TILE};
  const auto one = runRoiAlign(c, data, topGrad, 1), two = runRoiAlign(c, data, topGrad, 2);
  EXPECT_EQ(one.at("y"), two.at("y"));
  EXPECT_EQ(one.at("dx"), two.at("dx"));
}

template <class F> void expectError(F f, const std::string &culprit) {
  try {
    f();
    ADD_FAILURE() << "expected poplibs_error naming " << culprit;
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find(culprit), std::string::npos) << e.what();
  }
}

TEST(ROIAlignErrors, BadArgumentsAreRefusedNamingTheCulprit) {
  Harness h(Layout::SINGLE_TILE);
  auto &g = h.graph();
  auto var = [&](const poplar::Type &t, std::vector<std::size_t> shape) {
    auto v = g.addVariable(t, shape, "v");
    g.setTileMapping(v, 0);
    return v;
  };
  auto data = var(poplar::FLOAT, {1, 2, 4, 4}), rois = var(poplar::FLOAT, {3, 4});
  auto idx = var(poplar::INT, {3}), top = var(poplar::FLOAT, {3, 2, 2, 2});
  const roiAlignParams p(2, 2, 2, false, 1.0f);
  using popnn::experimental::roiAlignFwd;
  using popnn::experimental::roiAlignInputGradient;
  auto flat = var(poplar::FLOAT, {2, 16});
  expectError([&] { roiAlignFwd(g, h.prog(), flat, rois, idx, p); }, "'bottomData'");
  auto rois5 = var(poplar::FLOAT, {3, 5});
  expectError([&] { roiAlignFwd(g, h.prog(), data, rois5, idx, p); }, "'bottomRois'");
  auto uidx = var(poplar::UNSIGNED_INT, {3});
  expectError([&] { roiAlignFwd(g, h.prog(), data, rois, uidx, p); }, "'bottomBatchIndex'");
  auto idx2 = var(poplar::INT, {2});
  expectError([&] { roiAlignFwd(g, h.prog(), data, rois, idx2, p); }, "'bottomBatchIndex'");
  expectError([&] { roiAlignFwd(g, h.prog(), data, rois, idx, roiAlignParams(0, 2, 2, false, 1)); },
              "samplingRatio");
  expectError([&] { roiAlignFwd(g, h.prog(), data, rois, idx, roiAlignParams(2, 2, 2, false, 0)); },
              "spatialScale");
  auto badTop = var(poplar::FLOAT, {3, 2, 3, 2});
  expectError([&] { roiAlignInputGradient(g, h.prog(), data, rois, idx, badTop, p); },
              "'topDataGrad'");
}

} // namespace
