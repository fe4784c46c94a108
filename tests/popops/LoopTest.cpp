// popops::countedLoop / countedForLoop: the counter values the body sees, recorded on the
// device by a dynamicUpdate of history[counter] = counter, against reference::…Counters.
#include <gtest/gtest.h>

#include <algorithm>

#include <popops/DynamicSlice.hpp>
#include <popops/Loop.hpp>
#include <popops/ScaledAdd.hpp>
#include <poputil/exceptions.hpp>

#include <reference/Loop.hpp>

#include "PopopsModuleHarness.hpp"

using popops_test::Harness;
using popops_test::Layout;

namespace {

constexpr double kUnseen = 999;
constexpr std::size_t kHistory = 24;

/// history[counter] = counter for the UNSIGNED_INT scalar view `counter`.
poplar::program::Sequence record(poplar::Graph &graph, const poplar::Tensor &history,
                                 const poplar::Tensor &counter) {
  poplar::program::Sequence s;
  poplar::Tensor c = counter.reinterpret(poplar::UNSIGNED_INT).reshape({1});
  popops::dynamicUpdate(graph, history, c.reshape({1, 1}), c, {0}, {1}, s);
  return s;
}

/// The values a history filled by record() says the body saw, in increasing order.
std::vector<double> seen(const std::vector<double> &history) {
  std::vector<double> out;
  for (double v : history)
    if (v != kUnseen)
      out.push_back(v);
  return out;
}

std::vector<double> sorted(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v;
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

TEST(Loop, CountedLoopBodySeesBeginToEndByStep) {
  struct Case {
    std::size_t begin, end, step;
  };
  for (auto layout : {Layout::SINGLE_TILE, Layout::MULTI_TILE})
    for (Case c : {Case{0, 5, 1}, Case{3, 20, 4}, Case{7, 8, 3}}) {
      Harness h(layout);
      auto history = h.input(poplar::UNSIGNED_INT, {kHistory, 1},
                             std::vector<double>(kHistory, kUnseen), "history");
      h.prog().add(
          popops::countedLoop(h.graph(), c.begin, c.end, c.step, [&](const poplar::Tensor &i) {
            EXPECT_EQ(i.elementType(), poplar::UNSIGNED_INT);
            EXPECT_EQ(i.numElements(), 1u);
            return record(h.graph(), history, i);
          }));
      h.output("history", history);
      EXPECT_EQ(seen(h.run()["history"]), reference::countedLoopCounters(c.begin, c.end, c.step))
          << c.begin << ".." << c.end << " by " << c.step << " " << layoutName(layout);
    }
}

TEST(Loop, CountedLoopWithACountStartsAtZero) {
  Harness h;
  auto history = h.input(poplar::UNSIGNED_INT, {kHistory, 1},
                         std::vector<double>(kHistory, kUnseen), "history");
  h.prog().add(popops::countedLoop(
      h.graph(), 6, [&](const poplar::Tensor &i) { return record(h.graph(), history, i); }));
  h.output("history", history);
  EXPECT_EQ(seen(h.run()["history"]), reference::countedLoopCounters(0, 6, 1));
}

TEST(Loop, CountedForLoopReadsItsLimitAtRunTime) {
  for (auto layout : {Layout::SINGLE_TILE, Layout::MULTI_TILE})
    for (double limit : {9.0, 1.0, 21.0}) {
      Harness h(layout);
      auto history = h.input(poplar::UNSIGNED_INT, {kHistory, 1},
                             std::vector<double>(kHistory, kUnseen), "history");
      auto countLimit = h.input(poplar::UNSIGNED_INT, {}, {limit}, "limit");
      poplar::Tensor count = h.graph().addVariable(poplar::UNSIGNED_INT, {}, "count");
      h.map(count);
      h.prog().add(popops::countedForLoop(h.graph(), count, 1, countLimit, 2,
                                          record(h.graph(), history, count)));
      h.output("history", history);
      h.output("count", count);
      auto out = h.run();
      const auto want = reference::countedForLoopCounters(1, std::int64_t(limit), 2, kHistory);
      EXPECT_EQ(seen(out["history"]), want) << limit << " " << layoutName(layout);
      EXPECT_EQ(out["count"], std::vector<double>{limit}) << "the count ends at the limit";
    }
}

TEST(Loop, CountedForLoopCountsDownWithANegativeIntStep) {
  Harness h;
  auto history = h.input(poplar::UNSIGNED_INT, {kHistory, 1},
                         std::vector<double>(kHistory, kUnseen), "history");
  auto countLimit = h.input(poplar::INT, {1}, {2}, "limit");
  poplar::Tensor count = h.graph().addVariable(poplar::INT, {1}, "count");
  h.map(count);
  h.prog().add(popops::countedForLoop(h.graph(), count, 10, countLimit, -2,
                                      record(h.graph(), history, count)));
  h.output("history", history);
  EXPECT_EQ(seen(h.run()["history"]), sorted(reference::countedForLoopCounters(10, 2, -2, 99)));
}

TEST(Loop, CountedForLoopWithItsOwnCounterRunsTheBodyPerPass) {
  for (double limit : {0.0, 3.0, 7.0}) {
    Harness h;
    auto passes = h.input(poplar::FLOAT, {1}, {0}, "passes");
    auto one = h.input(poplar::FLOAT, {1}, {1}, "one");
    auto countLimit = h.input(poplar::INT, {}, {limit}, "limit");
    poplar::program::Sequence body;
    popops::scaledAddTo(h.graph(), passes, one, 1.0f, body);
    h.prog().add(popops::countedForLoop(h.graph(), 0, countLimit, 1, body));
    h.output("passes", passes);
    EXPECT_EQ(h.run()["passes"], std::vector<double>{double(
                                     reference::countedForLoopCounters(0, limit, 1, 99).size())})
        << limit;
  }
}

TEST(Loop, ResultsAreIdenticalForOneAndTwoHostThreads) {
  auto run = [](unsigned threads) {
    Harness h(Layout::MULTI_TILE);
    auto history = h.input(poplar::UNSIGNED_INT, {kHistory, 1},
                           std::vector<double>(kHistory, kUnseen), "history");
    h.prog().add(popops::countedLoop(h.graph(), 2, 23, 3, [&](const poplar::Tensor &i) {
      return record(h.graph(), history, i);
    }));
    h.output("history", history);
    return h.run(threads)["history"];
  };
  EXPECT_EQ(run(1), run(2));
}

TEST(LoopErrors, CountedLoopNeedsAPositiveStepAndBeginBelowEnd) {
  Harness h;
  auto body = [](const poplar::Tensor &) { return poplar::program::Sequence(); };
  expectThrowsNaming([&] { popops::countedLoop(h.graph(), 0, 4, 0, body); }, "step");
  expectThrowsNaming([&] { popops::countedLoop(h.graph(), 4, 4, 1, body); }, "begin (4)");
  expectThrowsNaming([&] { popops::countedLoop(h.graph(), 0, body); }, "begin (0)");
}

TEST(LoopErrors, CountedForLoopChecksTheCounterAndLimitTypes) {
  Harness h;
  poplar::program::Sequence body;
  auto fCount = h.input(poplar::FLOAT, {}, {0}, "fCount");
  auto uCount = h.input(poplar::UNSIGNED_INT, {}, {0}, "uCount");
  auto iLimit = h.input(poplar::INT, {}, {3}, "iLimit");
  auto fLimit = h.input(poplar::FLOAT, {}, {3}, "fLimit");
  auto twoLimits = h.input(poplar::UNSIGNED_INT, {2}, {3, 4}, "twoLimits");
  auto &g = h.graph();
  expectThrowsNaming([&] { popops::countedForLoop(g, fCount, 0, fLimit, 1, body); },
                     "count must be INT or UNSIGNED_INT");
  expectThrowsNaming([&] { popops::countedForLoop(g, uCount, 0, iLimit, 1, body); },
                     "countLimit int");
  expectThrowsNaming([&] { popops::countedForLoop(g, uCount, 0, twoLimits, 1, body); },
                     "countLimit must have one element");
  expectThrowsNaming([&] { popops::countedForLoop(g, 0, fLimit, 1, body); },
                     "countLimit must be INT or UNSIGNED_INT");
}
