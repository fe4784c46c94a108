// popops::allTrue against reference::allTrue, on one tile and spread over 16.
#include <gtest/gtest.h>

#include <popops/AllTrue.hpp>
#include <poputil/exceptions.hpp>

#include <reference/AllTrue.hpp>

#include "PopopsModuleHarness.hpp"

using popops_test::Harness;
using popops_test::Layout;

namespace {

double runAllTrue(Layout layout, const std::vector<std::size_t> &shape,
                  const std::vector<double> &values, unsigned threads = 1) {
  Harness h(layout);
  auto a = h.input(poplar::BOOL, shape, values, "A");
  auto result = popops::allTrue(h.graph(), a, h.prog());
  EXPECT_EQ(result.elementType(), poplar::BOOL);
  EXPECT_EQ(result.numElements(), 1u);
  h.output("result", result);
  return h.run(threads)["result"][0];
}

} // namespace

TEST(AllTrue, AllTrueElementsGiveTrue) {
  for (auto layout : {Layout::SINGLE_TILE, Layout::MULTI_TILE})
    EXPECT_EQ(runAllTrue(layout, {6, 9}, std::vector<double>(54, 1)), 1.0) << layoutName(layout);
}

TEST(AllTrue, OneFalseElementAnywhereGivesFalse) {
  for (auto layout : {Layout::SINGLE_TILE, Layout::MULTI_TILE})
    for (std::size_t at : {0u, 26u, 53u}) {
      std::vector<double> v(54, 1);
      v[at] = 0;
      EXPECT_EQ(runAllTrue(layout, {6, 9}, v), double(reference::allTrue(v)))
          << layoutName(layout) << " at " << at;
    }
}

TEST(AllTrue, EmptyTensorIsAllTrue) { EXPECT_EQ(runAllTrue(Layout::MULTI_TILE, {0, 3}, {}), 1.0); }

TEST(AllTrue, ResultsAreIdenticalForOneAndTwoHostThreads) {
  std::vector<double> v(100, 1);
  v[77] = 0;
  EXPECT_EQ(runAllTrue(Layout::MULTI_TILE, {100}, v, 1),
            runAllTrue(Layout::MULTI_TILE, {100}, v, 2));
}

TEST(AllTrueErrors, NonBoolTensorIsRefused) {
  Harness h;
  auto a = h.input(poplar::FLOAT, {3}, {1, 1, 1}, "A");
  try {
    popops::allTrue(h.graph(), a, h.prog());
    FAIL() << "expected poplibs_error";
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find("A must be a BOOL tensor"), std::string::npos) << e.what();
  }
}
