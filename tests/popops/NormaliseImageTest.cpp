// popops::normaliseImage / createNormaliseImageInput against reference::normaliseImage for
// UNSIGNED_CHAR, HALF and FLOAT images, on one tile and spread over 16.
#include <gtest/gtest.h>

#include <cmath>

#include <popops/NormaliseImage.hpp>
#include <poputil/exceptions.hpp>

#include <reference/Common.hpp>
#include <reference/NormaliseImage.hpp>

#include "PopopsModuleHarness.hpp"

using popops_test::Harness;
using popops_test::Layout;

namespace {

const std::vector<double> kOffsets{0.485, 0.456, 0.406}, kScales{4.37, 4.46, 4.44};
const std::vector<std::size_t> kShape{2, 5, 7, 3};

std::vector<double> imageValues(const poplar::Type &type) {
  if (type == poplar::UNSIGNED_CHAR) {
    auto v = reference::randomValues(210, 1, 0, 256);
    for (auto &x : v)
      x = std::floor(x);
    return v;
  }
  return reference::roundTo(type, reference::randomValues(210, 1, 0, 1));
}

std::vector<double> runNormalise(const poplar::Type &type, Layout layout, bool created,
                                 unsigned threads = 1) {
  Harness h(layout);
  const poplar::Type outType = type == poplar::UNSIGNED_CHAR ? poplar::HALF : type;
  poplar::Tensor image;
  if (created) {
    image = popops::createNormaliseImageInput(h.graph(), type, kShape);
    h.input(image, imageValues(type), "image");
  } else {
    image = h.input(type, kShape, imageValues(type), "image");
  }
  auto offsets = h.input(outType, {3}, kOffsets, "offsets");
  auto scales = h.input(outType, {3}, kScales, "scales");
  const float inScale = type == poplar::UNSIGNED_CHAR ? 1.0f / 255 : 1.0f;
  auto out = popops::normaliseImage(h.graph(), h.prog(), image, inScale, offsets, scales);
  EXPECT_EQ(out.shape(), (std::vector<std::size_t>{2, 5, 7, 4}));
  EXPECT_EQ(out.elementType(), outType);
  h.output("out", out);
  return h.run(threads)["out"];
}

} // namespace

TEST(NormaliseImage, NormalisesThreeChannelsAndPadsAZeroFourth) {
  for (auto type : {poplar::UNSIGNED_CHAR, poplar::HALF, poplar::FLOAT})
    for (auto layout : {Layout::SINGLE_TILE, Layout::MULTI_TILE})
      for (bool created : {false, true}) {
        const poplar::Type outType = type == poplar::UNSIGNED_CHAR ? poplar::HALF : type;
        const double inScale = type == poplar::UNSIGNED_CHAR ? double(1.0f / 255) : 1.0;
        const auto want = reference::normaliseImage(imageValues(type), inScale,
                                                    reference::roundTo(outType, kOffsets),
                                                    reference::roundTo(outType, kScales));
        const auto got = runNormalise(type, layout, created);
        ASSERT_EQ(got.size(), want.size());
        // One rounding to the output type (HALF: 2^-10 relative) plus float arithmetic.
        const double rtol = outType == poplar::HALF ? 1e-3 : 1e-6;
        for (std::size_t i = 0; i < got.size(); ++i)
          ASSERT_NEAR(got[i], want[i], 1e-6 + rtol * std::fabs(want[i]))
              << type.toString() << " " << layoutName(layout) << " created=" << created
              << " element " << i;
      }
}

TEST(NormaliseImage, CreatedInputKeepsWholePixelsOnATile) {
  Harness h(Layout::MULTI_TILE);
  auto image = popops::createNormaliseImageInput(h.graph(), poplar::HALF, {10, 10, 3});
  for (const auto &intervals : h.graph().getTileMapping(image))
    for (const auto &interval : intervals) {
      EXPECT_EQ(interval.begin() % 3, 0u);
      EXPECT_EQ(interval.end() % 3, 0u);
    }
}

TEST(NormaliseImage, ResultsAreIdenticalForOneAndTwoHostThreads) {
  EXPECT_EQ(runNormalise(poplar::UNSIGNED_CHAR, Layout::MULTI_TILE, true, 1),
            runNormalise(poplar::UNSIGNED_CHAR, Layout::MULTI_TILE, true, 2));
}

TEST(NormaliseImageErrors, TypesAndShapesAreChecked) {
  Harness h;
  auto expectError = [](auto fn, const std::string &culprit) {
    try {
      fn();
      FAIL() << "expected poplibs_error naming " << culprit;
    } catch (const poputil::poplibs_error &e) {
      EXPECT_NE(std::string(e.what()).find(culprit), std::string::npos) << e.what();
    }
  };
  auto &g = h.graph();
  auto &p = h.prog();
  expectError(
      [&] {
        popops::createNormaliseImageInput(g, poplar::INT, {4, 3});
      },
      "type must be UNSIGNED_CHAR, HALF or FLOAT");
  expectError(
      [&] {
        popops::createNormaliseImageInput(g, poplar::HALF, {4, 4});
      },
      "innermost dimension of 3");
  auto image = h.input(poplar::HALF, {4, 3}, std::vector<double>(12), "image");
  auto image4 = h.input(poplar::HALF, {3, 4}, std::vector<double>(12), "image4");
  auto intImage = h.input(poplar::INT, {4, 3}, std::vector<double>(12), "intImage");
  auto offsets = h.input(poplar::HALF, {3}, kOffsets, "offsets");
  auto floatScales = h.input(poplar::FLOAT, {3}, kScales, "floatScales");
  auto offsets4 = h.input(poplar::HALF, {4}, {0, 0, 0, 0}, "offsets4");
  expectError([&] { popops::normaliseImage(g, p, intImage, 1.0f, offsets, offsets); },
              "tIn must be UNSIGNED_CHAR, HALF or FLOAT");
  expectError([&] { popops::normaliseImage(g, p, image4, 1.0f, offsets, offsets); },
              "tIn must have an innermost dimension of 3");
  expectError([&] { popops::normaliseImage(g, p, image, 1.0f, offsets4, offsets); },
              "offsets must be shape {3}");
  expectError([&] { popops::normaliseImage(g, p, image, 1.0f, offsets, floatScales); },
              "scales must be shape {3} of the output type half");
}
