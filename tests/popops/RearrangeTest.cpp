// popops::rearrange: partialTranspose against reference::partialTranspose, and the regrouping
// functions keep values while changing the grouping poputil::detectDimGroupings sees.
#include <gtest/gtest.h>

#include <popops/Rearrange.hpp>
#include <poputil/VarStructure.hpp>
#include <poputil/exceptions.hpp>

#include <reference/Common.hpp>
#include <reference/Rearrange.hpp>

#include "PopopsModuleHarness.hpp"

using popops_test::Harness;
using popops_test::Layout;

namespace {

/// An [8][16] tensor laid out in groups of 4 along dimension 0 (t[i][j] lives at
/// base[i / 4][j][i % 4]), base spread linearly (or on tile 0).
poplar::Tensor groupedAlongRows(Harness &h, const poplar::Type &type, const std::string &name) {
  poplar::Tensor base = h.graph().addVariable(type, {2, 16, 4}, name);
  h.map(base);
  return base.dimShuffle({0, 2, 1}).reshape({8, 16});
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

TEST(Rearrange, PartialTransposeSwapsTheInnermostDimensions) {
  for (auto type : {poplar::FLOAT, poplar::HALF, poplar::INT})
    for (auto layout : {Layout::SINGLE_TILE, Layout::MULTI_TILE}) {
      Harness h(layout);
      auto values = reference::roundTo(type, reference::randomValues(72, 1, -50, 50));
      if (type == poplar::INT)
        for (auto &x : values)
          x = double(int(x));
      auto in = h.input(type, {3, 4, 6}, values, "in");
      poplar::ComputeSet cs = h.graph().addComputeSet("transpose");
      auto out = popops::rearrange::partialTranspose(h.graph(), in, cs);
      h.prog().add(poplar::program::Execute(cs));
      EXPECT_EQ(out.shape(), (std::vector<std::size_t>{3, 6, 4}));
      h.output("out", out);
      EXPECT_EQ(h.run()["out"], reference::partialTranspose(values, 4, 6))
          << type.toString() << " " << layoutName(layout);
    }
}

TEST(Rearrange, RegroupTensorKeepsValuesAndGroupsTheNewDimension) {
  for (auto type : {poplar::HALF, poplar::FLOAT})
    for (auto layout : {Layout::SINGLE_TILE, Layout::MULTI_TILE}) {
      Harness h(layout);
      auto t = groupedAlongRows(h, type, "t");
      const auto values = reference::roundTo(type, reference::randomValues(128, 2));
      h.input(t, values, "t");
      ASSERT_EQ(poputil::detectDimGroupings(h.graph(), t)[0].first, 0u);
      poplar::ComputeSet cs = h.graph().addComputeSet("regroup");
      auto out = popops::rearrange::regroupTensor(h.graph(), t, h.prog(), cs, {0, 4}, {1, 4});
      h.prog().add(poplar::program::Execute(cs));
      EXPECT_EQ(out.shape(), t.shape());
      EXPECT_EQ(poputil::detectDimGroupings(h.graph(), out)[0].first, 1u);
      h.output("out", out);
      EXPECT_EQ(h.run()["out"], reference::regroup(values))
          << type.toString() << " " << layoutName(layout);
    }
}

TEST(Rearrange, RegroupIfBeneficialFollowsTheReferenceOrPreferredGrouping) {
  Harness h(Layout::MULTI_TILE);
  auto in = groupedAlongRows(h, poplar::HALF, "in");
  const auto values = reference::roundTo(poplar::HALF, reference::randomValues(128, 3));
  h.input(in, values, "in");
  poplar::Tensor ref = h.graph().addVariable(poplar::HALF, {8, 16}, "ref");
  poputil::mapTensorLinearly(h.graph(), ref, 1, 8);
  auto byRef = popops::rearrange::regroupIfBeneficial(h.graph(), in, ref, h.prog());
  auto byPreferred = popops::rearrange::regroupIfBeneficial(h.graph(), in, 8, h.prog());
  auto possible = popops::rearrange::regroupIfPossible(h.graph(), in, h.prog(), {1, 8});
  for (const auto &t : {byRef, byPreferred, possible})
    EXPECT_EQ(poputil::detectDimGroupings(h.graph(), t)[0].first, 1u);
  h.output("byRef", byRef);
  h.output("byPreferred", byPreferred);
  h.output("possible", possible);
  auto out = h.run();
  EXPECT_EQ(out["byRef"], values);
  EXPECT_EQ(out["byPreferred"], values);
  EXPECT_EQ(out["possible"], values);
}

TEST(Rearrange, NothingToGainReturnsTheTensorItself) {
  Harness h(Layout::MULTI_TILE);
  poplar::Tensor t = h.graph().addVariable(poplar::HALF, {8, 16}, "t");
  poputil::mapTensorLinearly(h.graph(), t, 1, 8); // already grouped along dimension 1
  EXPECT_EQ(popops::rearrange::regroupIfBeneficial(h.graph(), t, 8, h.prog()), t);
  EXPECT_EQ(popops::rearrange::regroupIfPossible(h.graph(), t, h.prog(), {1, 4}), t);
  poplar::Tensor boolT = h.graph().addVariable(poplar::BOOL, {8, 16}, "boolT");
  h.map(boolT);
  EXPECT_EQ(popops::rearrange::regroupIfBeneficial(h.graph(), boolT, t, h.prog()), boolT);
  poplar::Tensor vec = h.graph().addVariable(poplar::HALF, {16}, "vec");
  h.map(vec);
  poplar::ComputeSet cs = h.graph().addComputeSet("cs");
  EXPECT_EQ(popops::rearrange::regroupTensor(h.graph(), vec, h.prog(), cs, {0, 4}, {0, 8}), vec);
}

TEST(Rearrange, GrainSizesAndFastTransposeConditions) {
  Harness h;
  const auto &target = h.graph().getTarget();
  EXPECT_EQ(popops::rearrange::getMinimumRegroupGrainSize(poplar::HALF), 4u);
  EXPECT_EQ(popops::rearrange::getMinimumRegroupGrainSize(poplar::FLOAT), 2u);
  EXPECT_EQ(popops::rearrange::getMinimumRegroupGrainSize(poplar::BOOL), 1u);
  EXPECT_TRUE(popops::rearrange::canUseFastTranspose(target, poplar::HALF, 8, 8, 10));
  EXPECT_FALSE(popops::rearrange::canUseFastTranspose(target, poplar::FLOAT, 8, 8, 10));
  EXPECT_FALSE(popops::rearrange::canUseFastTranspose(target, poplar::HALF, 6, 8, 10));
  EXPECT_FALSE(popops::rearrange::canUseFastTranspose(target, poplar::HALF, 8, 8, 70000));
  auto t = h.input(poplar::HALF, {8, 16}, std::vector<double>(128), "t");
  const auto [from, to] = popops::rearrange::updateGrouping(h.graph(), t, {0, 4}, {1, 4});
  EXPECT_EQ(from.first, 0u);
  EXPECT_EQ(to.first, 1u);
  EXPECT_EQ(4u % from.second, 0u);
  EXPECT_EQ(4u % to.second, 0u);
}

TEST(Rearrange, ResultsAreIdenticalForOneAndTwoHostThreads) {
  auto run = [](unsigned threads) {
    Harness h(Layout::MULTI_TILE);
    auto t = groupedAlongRows(h, poplar::HALF, "t");
    h.input(t, reference::randomValues(128, 4), "t");
    h.output("out", popops::rearrange::regroupIfBeneficial(h.graph(), t, 4, h.prog()));
    return h.run(threads)["out"];
  };
  EXPECT_EQ(run(1), run(2));
}

TEST(RearrangeErrors, BadGroupingsTypesAndShapesAreNamed) {
  Harness h;
  auto t = h.input(poplar::HALF, {8, 16}, std::vector<double>(128), "t");
  auto boolT = h.input(poplar::BOOL, {8, 16}, std::vector<double>(128), "boolT");
  auto other = h.input(poplar::HALF, {16, 8}, std::vector<double>(128), "other");
  poplar::ComputeSet cs = h.graph().addComputeSet("cs");
  auto &g = h.graph();
  auto &p = h.prog();
  expectThrowsNaming(
      [&] {
        popops::rearrange::regroupTensor(g, t, p, cs, {2, 4}, {1, 4});
      },
      "grouping 'from' {2,4} names dimension 2");
  expectThrowsNaming(
      [&] {
        popops::rearrange::regroupTensor(g, t, p, cs, {0, 4}, {1, 5});
      },
      "grouping 'to' {1,5} does not divide dimension 1");
  expectThrowsNaming(
      [&] {
        popops::rearrange::regroupTensor(g, boolT, p, cs, {0, 4}, {1, 4});
      },
      "data type bool");
  expectThrowsNaming([&] { popops::rearrange::regroupIfBeneficial(g, t, other, p); },
                     "must have the same shape");
  expectThrowsNaming([&] { popops::rearrange::regroupIfBeneficial(g, t, 5, p); },
                     "preferredGrouping 5");
  expectThrowsNaming([&] { popops::rearrange::partialTranspose(g, t.flatten(), cs); },
                     "in must have rank >= 2");
}
