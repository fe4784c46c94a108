// popops::sequenceSlice against reference::sequenceSlice, FLOAT, HALF and INT, on one tile and
// spread over 16 (output rows split between tiles).
#include <gtest/gtest.h>

#include <popops/SequenceSlice.hpp>
#include <poputil/exceptions.hpp>

#include <reference/Common.hpp>
#include <reference/SequenceSlice.hpp>

#include "PopopsModuleHarness.hpp"

using popops_test::Harness;
using popops_test::Layout;

namespace {

const Layout kLayouts[] = {Layout::SINGLE_TILE, Layout::MULTI_TILE};

// Three runs (one reaching past tIn's end, one past tOut's end), then a 0 that ends the list.
const std::vector<std::uint32_t> kN{3, 2, 4, 0, 5}, kInOffset{1, 8, 0, 0, 0},
    kOutOffset{0, 4, 9, 0, 0};
constexpr std::size_t kInRows = 9, kOutRows = 11;

std::vector<double> asDoubles(const std::vector<std::uint32_t> &v) {
  return std::vector<double>(v.begin(), v.end());
}

std::vector<double> run(const poplar::Type &type, Layout layout, bool zeroUnused,
                        unsigned threads = 1) {
  Harness h(layout);
  const auto in = reference::roundTo(type, reference::randomValues(kInRows * 6, 1, -20, 20));
  const auto out0 = reference::roundTo(type, reference::randomValues(kOutRows * 6, 2, -20, 20));
  auto tIn = h.input(type, {kInRows, 2, 3}, in, "tIn");
  auto tOut = h.input(type, {kOutRows, 6}, out0, "tOut");
  auto n = h.input(poplar::UNSIGNED_INT, {5}, asDoubles(kN), "n");
  auto inOff = h.input(poplar::UNSIGNED_INT, {5}, asDoubles(kInOffset), "inOff");
  auto outOff = h.input(poplar::UNSIGNED_INT, {5}, asDoubles(kOutOffset), "outOff");
  popops::sequenceSlice(h.graph(), tIn, tOut, n, inOff, outOff, zeroUnused, h.prog());
  h.output("tOut", tOut);
  return h.run(threads)["tOut"];
}

std::vector<double> want(const poplar::Type &type, bool zeroUnused) {
  auto in = reference::roundTo(type, reference::randomValues(kInRows * 6, 1, -20, 20));
  auto out0 = reference::roundTo(type, reference::randomValues(kOutRows * 6, 2, -20, 20));
  if (type == poplar::INT) {
    for (auto &x : in)
      x = double(std::int32_t(x));
    for (auto &x : out0)
      x = double(std::int32_t(x));
  }
  return reference::sequenceSlice(in, kInRows, out0, kOutRows, 6, kN, kInOffset, kOutOffset,
                                  zeroUnused);
}

template <class Fn> void expectThrowsNaming(Fn fn, const std::string &culprit) {
  try {
    fn();
    FAIL() << "expected poputil::poplibs_error naming " << culprit;
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find(culprit), std::string::npos) << e.what();
  }
}

} // namespace

TEST(SequenceSlice, CopiesEachRunOfRowsAndKeepsTheRest) {
  for (auto type : {poplar::FLOAT, poplar::HALF, poplar::INT})
    for (auto layout : kLayouts)
      EXPECT_EQ(run(type, layout, false), want(type, false))
          << type.toString() << " " << layoutName(layout);
}

TEST(SequenceSlice, ZeroUnusedClearsRowsNoEntryWrites) {
  for (auto type : {poplar::FLOAT, poplar::HALF})
    for (auto layout : kLayouts)
      EXPECT_EQ(run(type, layout, true), want(type, true))
          << type.toString() << " " << layoutName(layout);
}

TEST(SequenceSlice, ResultsAreIdenticalForOneAndTwoHostThreads) {
  EXPECT_EQ(run(poplar::HALF, Layout::MULTI_TILE, true, 1),
            run(poplar::HALF, Layout::MULTI_TILE, true, 2));
}

TEST(SequenceSliceErrors, ArgumentsThatDoNotFitAreNamed) {
  Harness h;
  auto tIn = h.input(poplar::FLOAT, {4, 3}, std::vector<double>(12), "tIn");
  auto tOut = h.input(poplar::FLOAT, {5, 3}, std::vector<double>(15), "tOut");
  auto flat = h.input(poplar::FLOAT, {6}, std::vector<double>(6), "flat");
  auto halfIn = h.input(poplar::HALF, {4, 3}, std::vector<double>(12), "halfIn");
  auto wideIn = h.input(poplar::FLOAT, {4, 4}, std::vector<double>(16), "wideIn");
  auto n = h.input(poplar::UNSIGNED_INT, {2}, {1, 1}, "n");
  auto intN = h.input(poplar::INT, {2}, {1, 1}, "intN");
  auto three = h.input(poplar::UNSIGNED_INT, {3}, {0, 0, 0}, "three");
  auto &g = h.graph();
  auto &p = h.prog();
  expectThrowsNaming([&] { popops::sequenceSlice(g, flat, tOut, n, n, n, false, p); },
                     "tIn must have rank >= 2");
  expectThrowsNaming([&] { popops::sequenceSlice(g, tIn, flat, n, n, n, false, p); },
                     "tOut must have rank >= 2");
  expectThrowsNaming([&] { popops::sequenceSlice(g, halfIn, tOut, n, n, n, false, p); },
                     "tIn half[4,3] must have tOut's type");
  expectThrowsNaming([&] { popops::sequenceSlice(g, wideIn, tOut, n, n, n, false, p); },
                     "elements per row");
  expectThrowsNaming([&] { popops::sequenceSlice(g, tIn, tOut, intN, n, n, false, p); },
                     "tN must be a rank-1 UNSIGNED_INT");
  expectThrowsNaming([&] { popops::sequenceSlice(g, tIn, tOut, n, three, n, false, p); },
                     "tInOffset has 3 entries");
  expectThrowsNaming([&] { popops::sequenceSlice(g, tIn, tOut, n, n, three, false, p); },
                     "tOutOffset has 3 entries");
}
