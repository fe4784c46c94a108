// popops::encodeOneHot (both forms) and iota through <popops/Encoding.hpp>, against
// reference::encodeOneHot, on one tile and spread over 16.
#include <gtest/gtest.h>

#include <popops/Encoding.hpp>
#include <popops/Iota.hpp>
#include <poputil/exceptions.hpp>

#include <reference/Common.hpp>
#include <reference/Encoding.hpp>

#include "PopopsModuleHarness.hpp"

using popops_test::Harness;
using popops_test::Layout;

namespace {

const Layout kLayouts[] = {Layout::SINGLE_TILE, Layout::MULTI_TILE};

template <class Fn> void expectThrowsNaming(Fn fn, const std::string &culprit) {
  try {
    fn();
    FAIL() << "expected poputil::poplibs_error naming " << culprit;
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find(culprit), std::string::npos) << e.what();
  }
}

std::vector<double> asDoubles(const std::vector<std::int64_t> &v) {
  return std::vector<double>(v.begin(), v.end());
}

} // namespace

TEST(Encoding, OneHotRowsHaveTheirIndexHot) {
  const std::vector<std::int64_t> indices{3, 0, 6, 2, 2, 5, 1, 4, 0, 6, 3};
  for (auto type : {poplar::FLOAT, poplar::HALF, poplar::INT, poplar::UNSIGNED_INT})
    for (auto layout : kLayouts) {
      Harness h(layout);
      auto idx = h.input(poplar::UNSIGNED_INT, {11}, asDoubles(indices), "indices");
      poplar::Tensor encoded = h.graph().addVariable(type, {11, 7}, "encoded");
      h.map(encoded);
      popops::encodeOneHot(h.graph(), idx, encoded, h.prog());
      h.output("encoded", encoded);
      EXPECT_EQ(h.run()["encoded"], reference::encodeOneHot(indices, 7))
          << type.toString() << " " << layoutName(layout);
    }
}

TEST(Encoding, MaskedAndOutOfRangeIndicesGiveAllOffRows) {
  for (auto indexType : {poplar::UNSIGNED_INT, poplar::INT}) {
    Harness h(Layout::MULTI_TILE);
    const double masked = indexType == poplar::INT ? -1.0 : double(MASKED_LABEL_CODE);
    const std::vector<double> values{1, masked, 4, 9, 0};
    auto idx = h.input(indexType, {5}, values, "indices");
    poplar::Tensor encoded = h.graph().addVariable(poplar::FLOAT, {5, 5}, "encoded");
    h.map(encoded);
    popops::encodeOneHot(h.graph(), idx, encoded, h.prog());
    h.output("encoded", encoded);
    EXPECT_EQ(h.run()["encoded"], reference::encodeOneHot({1, -1, 4, 9, 0}, 5))
        << indexType.toString();
  }
}

TEST(Encoding, OnAndOffValuesComeFromTensors) {
  const std::vector<std::int64_t> indices{2, 0, 1, 1, 3, 0, 2};
  for (auto type : {poplar::FLOAT, poplar::HALF, poplar::INT})
    for (auto layout : kLayouts) {
      Harness h(layout);
      auto idx = h.input(poplar::INT, {7}, asDoubles(indices), "indices");
      auto on = h.input(type, {1}, {5}, "on");
      auto off = h.input(type, {}, {-2}, "off");
      poplar::Tensor encoded = h.graph().addVariable(type, {7, 4}, "encoded");
      h.map(encoded);
      popops::encodeOneHot(h.graph(), idx, encoded, h.prog(), on, off);
      h.output("encoded", encoded);
      EXPECT_EQ(h.run()["encoded"], reference::encodeOneHot(indices, 4, 5, -2))
          << type.toString() << " " << layoutName(layout);
    }
}

TEST(Encoding, ElementByElementMappingStillEncodesEveryRow) {
  Harness h(Layout::MULTI_TILE);
  const std::vector<std::int64_t> indices{0, 4, 2};
  auto idx = h.input(poplar::UNSIGNED_INT, {3}, asDoubles(indices), "indices");
  poplar::Tensor encoded = h.graph().addVariable(poplar::FLOAT, {3, 5}, "encoded");
  for (unsigned i = 0; i < 15; ++i) // neighbouring elements on different tiles
    h.graph().setTileMapping(encoded.flatten().slice(i, i + 1), (i * 7) % 16);
  popops::encodeOneHot(h.graph(), idx, encoded, h.prog());
  h.output("encoded", encoded);
  EXPECT_EQ(h.run()["encoded"], reference::encodeOneHot(indices, 5));
}

TEST(Encoding, ResultsAreIdenticalForOneAndTwoHostThreads) {
  auto run = [](unsigned threads) {
    Harness h(Layout::MULTI_TILE);
    std::vector<double> indices(40);
    for (std::size_t i = 0; i < indices.size(); ++i)
      indices[i] = double((i * 13) % 17);
    auto idx = h.input(poplar::UNSIGNED_INT, {40}, indices, "indices");
    poplar::Tensor encoded = h.graph().addVariable(poplar::HALF, {40, 17}, "encoded");
    h.map(encoded);
    popops::encodeOneHot(h.graph(), idx, encoded, h.prog());
    h.output("encoded", encoded);
    return h.run(threads)["encoded"];
  };
  EXPECT_EQ(run(1), run(2));
}

TEST(Encoding, IotaIsDeclaredByEncodingAndStillReachableThroughIota) {
  for (auto layout : kLayouts) {
    Harness h(layout);
    poplar::Tensor u = h.graph().addVariable(poplar::UNSIGNED_INT, {19}, "u");
    poplar::Tensor s = h.graph().addVariable(poplar::INT, {23}, "s");
    h.map(u);
    h.map(s);
    popops::iota(h.graph(), u, 5u, h.prog());
    popops::iota(h.graph(), s, -11, h.prog());
    h.output("u", u);
    h.output("s", s);
    auto out = h.run();
    EXPECT_EQ(out["u"], reference::iota(5, 19));
    EXPECT_EQ(out["s"], reference::iota(-11, 23));
  }
}

TEST(EncodingErrors, ShapesAndTypesAreChecked) {
  Harness h;
  auto idx = h.input(poplar::UNSIGNED_INT, {4}, {0, 1, 2, 3}, "indices");
  auto floatIdx = h.input(poplar::FLOAT, {4}, {0, 1, 2, 3}, "floatIndices");
  auto idx2d = h.input(poplar::UNSIGNED_INT, {2, 2}, {0, 1, 2, 3}, "indices2d");
  poplar::Tensor enc = h.graph().addVariable(poplar::FLOAT, {4, 5}, "enc");
  poplar::Tensor enc3d = h.graph().addVariable(poplar::FLOAT, {4, 5, 1}, "enc3d");
  poplar::Tensor encRows = h.graph().addVariable(poplar::FLOAT, {3, 5}, "encRows");
  poplar::Tensor encBool = h.graph().addVariable(poplar::BOOL, {4, 5}, "encBool");
  for (auto t : {enc, enc3d, encRows, encBool})
    h.map(t);
  auto &g = h.graph();
  auto &p = h.prog();
  expectThrowsNaming([&] { popops::encodeOneHot(g, idx, enc3d, p); }, "encoded must be rank 2");
  expectThrowsNaming([&] { popops::encodeOneHot(g, floatIdx, enc, p); },
                     "indices must be an integer");
  expectThrowsNaming([&] { popops::encodeOneHot(g, idx2d, enc, p); }, "indices must be rank 1");
  expectThrowsNaming([&] { popops::encodeOneHot(g, idx, encRows, p); },
                     "but encoded float[3,5] has 3 rows");
  expectThrowsNaming([&] { popops::encodeOneHot(g, idx, encBool, p); }, "encoded must be FLOAT");
}

TEST(EncodingErrors, OnAndOffMustBeOneElementOfEncodedType) {
  Harness h;
  auto idx = h.input(poplar::UNSIGNED_INT, {4}, {0, 1, 2, 3}, "indices");
  poplar::Tensor enc = h.graph().addVariable(poplar::FLOAT, {4, 5}, "enc");
  h.map(enc);
  auto one = h.input(poplar::FLOAT, {}, {1}, "one");
  auto two = h.input(poplar::FLOAT, {2}, {1, 2}, "two");
  auto halfOne = h.input(poplar::HALF, {}, {1}, "halfOne");
  auto &g = h.graph();
  auto &p = h.prog();
  expectThrowsNaming([&] { popops::encodeOneHot(g, idx, enc, p, two, one); }, "on must");
  expectThrowsNaming([&] { popops::encodeOneHot(g, idx, enc, p, one, halfOne); }, "off is half");
}
