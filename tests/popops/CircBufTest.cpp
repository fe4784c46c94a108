// popops::CircBuf against reference::CircBuf: a sequence of adds and prev reads, FLOAT and HALF,
// on one tile and spread over 16.
#include <gtest/gtest.h>

#include <map>

#include <popops/CircBuf.hpp>
#include <poputil/exceptions.hpp>

#include <reference/CircBuf.hpp>
#include <reference/Common.hpp>

#include "PopopsModuleHarness.hpp"

using popops_test::Harness;
using popops_test::Layout;

namespace {

/// Five adds into a 3-entry buffer of [2][3] entries, reading entries between them; returns the
/// device's reads and the reference's, by name.
std::pair<std::map<std::string, std::vector<double>>, std::map<std::string, std::vector<double>>>
runSequence(const poplar::Type &type, Layout layout, unsigned threads = 1) {
  Harness h(layout);
  popops::CircBuf buf(h.graph(), type, 3, {2, 3});
  reference::CircBuf ref(3, 6);
  std::map<std::string, std::vector<double>> want;
  std::vector<poplar::Tensor> xs;
  std::vector<std::vector<double>> values;
  for (unsigned k = 0; k < 5; ++k) {
    values.push_back(reference::roundTo(type, reference::randomValues(6, 10 + k)));
    std::string name = "x";
    name += std::to_string(k);
    xs.push_back(h.input(type, {2, 3}, values.back(), name));
  }
  auto read = [&](const std::string &name, unsigned i) {
    poplar::Tensor t = buf.prev(i, h.prog());
    EXPECT_EQ(t.shape(), (std::vector<std::size_t>{2, 3}));
    h.output(name, t);
    want[name] = ref.prev(i);
  };
  auto add = [&](unsigned k) {
    buf.add(xs[k], h.prog());
    ref.add(values[k]);
  };
  add(0);
  read("afterOne", 0);
  add(1);
  add(2);
  read("latest", 0);
  read("middle", 1);
  read("oldest", 2);
  add(3);
  add(4); // wraps round: overwrites the entries of x0 and x1
  read("wrappedLatest", 0);
  read("wrappedOldest", 2);
  h.output("index", buf.getIndex());
  want["index"] = {double(ref.index())};
  return {h.run(threads), want};
}

} // namespace

TEST(CircBuf, PrevReadsTheEntryAddedThatManyAddsAgo) {
  for (auto type : {poplar::FLOAT, poplar::HALF})
    for (auto layout : {Layout::SINGLE_TILE, Layout::MULTI_TILE}) {
      auto [got, want] = runSequence(type, layout);
      for (const auto &[name, values] : want)
        EXPECT_EQ(got[name], values) << name << " " << type.toString() << " " << layoutName(layout);
    }
}

TEST(CircBuf, SizeAndTileMappingDescribeTheEntries) {
  Harness h(Layout::MULTI_TILE);
  popops::CircBuf buf(h.graph(), poplar::FLOAT, 4, {8, 5});
  EXPECT_EQ(buf.size(), 4u);
  EXPECT_EQ(buf.getIndex().numElements(), 1u);
  EXPECT_EQ(buf.getIndex().elementType(), poplar::UNSIGNED_INT);
  std::size_t mapped = 0;
  for (const auto &intervals : buf.getTileMapping())
    for (const auto &interval : intervals)
      mapped += interval.size();
  EXPECT_EQ(mapped, 40u);
}

TEST(CircBuf, ResultsAreIdenticalForOneAndTwoHostThreads) {
  EXPECT_EQ(runSequence(poplar::HALF, Layout::MULTI_TILE, 1).first,
            runSequence(poplar::HALF, Layout::MULTI_TILE, 2).first);
}

TEST(CircBufErrors, BadSizesIndicesAndEntriesAreRefused) {
  Harness h;
  auto expectError = [](auto fn, const std::string &culprit) {
    try {
      fn();
      FAIL() << "expected poplibs_error naming " << culprit;
    } catch (const poputil::poplibs_error &e) {
      EXPECT_NE(std::string(e.what()).find(culprit), std::string::npos) << e.what();
    }
  };
  expectError([&] { popops::CircBuf(h.graph(), poplar::FLOAT, 0, {2}); }, "size must be at least");
  popops::CircBuf buf(h.graph(), poplar::FLOAT, 2, {3});
  expectError([&] { buf.prev(2, h.prog()); }, "i = 2");
  auto wrongType = h.input(poplar::HALF, {3}, {1, 2, 3}, "wrongType");
  auto wrongSize = h.input(poplar::FLOAT, {4}, {1, 2, 3, 4}, "wrongSize");
  expectError([&] { buf.add(wrongType, h.prog()); }, "t is half[3]");
  expectError([&] { buf.add(wrongSize, h.prog()); }, "t float[4] has 4 elements");
}
