// popops::histogram (both forms) against reference::histogram, FLOAT and HALF, counted in
// UNSIGNED_INT and FLOAT, on one tile and spread over 16.
#include <gtest/gtest.h>

#include <limits>

#include <popops/GatherStatistics.hpp>
#include <poputil/exceptions.hpp>

#include <reference/Common.hpp>
#include <reference/GatherStatistics.hpp>

#include "PopopsModuleHarness.hpp"

using popops_test::Harness;
using popops_test::Layout;

namespace {

const std::vector<double> kLevels{-1.0, -0.25, 0.0, 0.5, 1.5};

std::vector<double> inputValues(const poplar::Type &type) {
  auto v = reference::roundTo(type, reference::randomValues(300, 1, -2.5, 2.5));
  v[7] = -0.25; // exactly on a level: counts in the bin above it
  v[8] = 1.5;
  v[9] = std::numeric_limits<double>::quiet_NaN();
  return v;
}

} // namespace

TEST(GatherStatistics, HistogramCountsEachBin) {
  for (auto type : {poplar::FLOAT, poplar::HALF})
    for (auto layout : {Layout::SINGLE_TILE, Layout::MULTI_TILE})
      for (bool absolute : {false, true})
        for (bool useFloat : {false, true}) {
          Harness h(layout);
          const auto in = inputValues(type);
          auto input = h.input(type, {20, 15}, in, "input");
          auto levels = h.input(type, {5}, kLevels, "levels");
          poplar::OptionFlags options;
          options.set("useFloatArithmetic", useFloat ? "true" : "false");
          auto hist = popops::histogram(h.graph(), input, levels, absolute, h.prog(), {}, options);
          EXPECT_EQ(hist.elementType(), useFloat ? poplar::FLOAT : poplar::UNSIGNED_INT);
          h.output("hist", hist);
          EXPECT_EQ(h.run()["hist"], reference::histogram(in, kLevels, absolute))
              << type.toString() << " " << layoutName(layout) << " abs=" << absolute
              << " float=" << useFloat;
        }
}

TEST(GatherStatistics, HistogramIntoAnOutputAccumulatesWhenAsked) {
  for (auto outType : {poplar::UNSIGNED_INT, poplar::FLOAT}) {
    Harness h(Layout::MULTI_TILE);
    const auto in = inputValues(poplar::FLOAT);
    auto input = h.input(poplar::FLOAT, {300}, in, "input");
    auto levels = h.input(poplar::FLOAT, {5}, kLevels, "levels");
    auto output = h.input(outType, {6}, {1, 2, 3, 4, 5, 6}, "output");
    popops::histogram(h.graph(), input, output, true, levels, false, h.prog());
    popops::histogram(h.graph(), input, output, true, levels, false, h.prog());
    h.output("output", output);
    auto want = reference::histogram(in, kLevels, false);
    for (std::size_t k = 0; k < want.size(); ++k)
      want[k] = 2 * want[k] + double(k + 1);
    EXPECT_EQ(h.run()["output"], want) << outType.toString();
  }
}

TEST(GatherStatistics, EmptyInputGivesZeroCounts) {
  Harness h;
  auto input = h.input(poplar::FLOAT, {0}, {}, "input");
  auto levels = h.input(poplar::FLOAT, {2}, {0, 1}, "levels");
  h.output("hist", popops::histogram(h.graph(), input, levels, false, h.prog()));
  EXPECT_EQ(h.run()["hist"], std::vector<double>(3, 0.0));
}

TEST(GatherStatistics, ResultsAreIdenticalForOneAndTwoHostThreads) {
  auto run = [](unsigned threads) {
    Harness h(Layout::MULTI_TILE);
    auto input = h.input(poplar::HALF, {300}, inputValues(poplar::HALF), "input");
    auto levels = h.input(poplar::HALF, {5}, kLevels, "levels");
    h.output("hist", popops::histogram(h.graph(), input, levels, true, h.prog()));
    return h.run(threads)["hist"];
  };
  EXPECT_EQ(run(1), run(2));
}

TEST(GatherStatisticsErrors, TypesShapesAndOptionsAreChecked) {
  Harness h;
  auto input = h.input(poplar::FLOAT, {4}, {0, 1, 2, 3}, "input");
  auto intInput = h.input(poplar::INT, {4}, {0, 1, 2, 3}, "intInput");
  auto levels = h.input(poplar::FLOAT, {2}, {0, 1}, "levels");
  auto halfLevels = h.input(poplar::HALF, {2}, {0, 1}, "halfLevels");
  auto levels2d = h.input(poplar::FLOAT, {1, 2}, {0, 1}, "levels2d");
  auto shortOut = h.input(poplar::UNSIGNED_INT, {2}, {0, 0}, "shortOut");
  auto intOut = h.input(poplar::INT, {3}, {0, 0, 0}, "intOut");
  auto &g = h.graph();
  auto &p = h.prog();
  auto expectError = [](auto fn, const std::string &culprit) {
    try {
      fn();
      FAIL() << "expected poplibs_error naming " << culprit;
    } catch (const poputil::poplibs_error &e) {
      EXPECT_NE(std::string(e.what()).find(culprit), std::string::npos) << e.what();
    }
  };
  expectError([&] { popops::histogram(g, intInput, levels, false, p); },
              "input must be FLOAT or HALF");
  expectError([&] { popops::histogram(g, input, halfLevels, false, p); },
              "levels half[2] must have input's type");
  expectError([&] { popops::histogram(g, input, levels2d, false, p); }, "levels must be rank 1");
  expectError([&] { popops::histogram(g, input, shortOut, false, levels, false, p); },
              "output unsigned int[2] must have one element more");
  expectError([&] { popops::histogram(g, input, intOut, false, levels, false, p); },
              "output must be FLOAT or UNSIGNED_INT");
  poplar::OptionFlags bad;
  bad.set("useFloatArithmetc", "true");
  EXPECT_THROW(popops::histogram(g, input, levels, false, p, {}, bad), poplar::invalid_option);
}
