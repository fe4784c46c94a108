// tessera-bench compare's arithmetic (medians, the paired bootstrap interval, significance), its
// CPU-steal accounting, the benchmark selection and the build-log reading, against values worked
// out by hand in the comments.
#include <BaselineBuild.hpp>
#include <BenchSuite.hpp>
#include <Comparison.hpp>
#include <CpuSteal.hpp>
#include <HostPrices.hpp>

#include <tessera/apps/Errors.hpp>

#include <gtest/gtest.h>

#include <algorithm>

using namespace tessera;
using namespace tessera::bench;

TEST(BenchCompare, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_THROW(median({}), apps::app_error);
  const Spread s = spreadOf({250, 240, 260});
  EXPECT_DOUBLE_EQ(s.median, 250);
  EXPECT_DOUBLE_EQ(s.min, 240);
  EXPECT_DOUBLE_EQ(s.max, 260);
}

// Baseline 100 in every round, so a resample's ratio is median(current*) / 100. With three rounds
// P(median* = 110) = P(at least two draws of 110) = 3·(1/3)²·(2/3) + (1/3)³ = 7/27 ≈ 26% > 2.5%,
// and likewise for 130: the 95% interval is [1.10, 1.30].
TEST(BenchCompare, ThreeRoundIntervalSpansTheExtremeRatios) {
  const SpeedupEstimate e = estimateSpeedup({110, 130, 120}, {100, 100, 100});
  EXPECT_DOUBLE_EQ(e.speedup, 1.2);
  ASSERT_TRUE(e.low && e.high);
  EXPECT_DOUBLE_EQ(*e.low, 1.1);
  EXPECT_DOUBLE_EQ(*e.high, 1.3);
  EXPECT_TRUE(e.significant);
}

TEST(BenchCompare, IntervalAcrossOneIsNotSignificant) {
  const SpeedupEstimate e = estimateSpeedup({90, 120, 105}, {100, 100, 100});
  EXPECT_DOUBLE_EQ(e.speedup, 1.05);
  EXPECT_DOUBLE_EQ(*e.low, 0.9);
  EXPECT_DOUBLE_EQ(*e.high, 1.2);
  EXPECT_FALSE(e.significant);
}

TEST(BenchCompare, SlowerIsSignificantBelowOne) {
  const SpeedupEstimate e = estimateSpeedup({50, 60, 55}, {100, 100, 100});
  EXPECT_DOUBLE_EQ(e.speedup, 0.55);
  EXPECT_DOUBLE_EQ(*e.high, 0.6);
  EXPECT_TRUE(e.significant);
}

// Seven rounds 101…107 over 100: the resampled median is the lowest value only when at least 4
// of 7 draws hit it, P = Σ_{k≥4} C(7,k)(1/7)^k(6/7)^(7−k) ≈ 1.0% < 2.5%, while it is at most the
// second lowest with P ≥ C(7,4)(2/7)⁴(5/7)³ ≈ 8.5% > 2.5%. So the 2.5% quantile is 102/100 and,
// by symmetry, the 97.5% quantile 106/100: the tails are trimmed.
TEST(BenchCompare, SevenRoundIntervalTrimsTheTails) {
  const SpeedupEstimate e =
      estimateSpeedup({104, 101, 107, 102, 106, 103, 105}, std::vector<double>(7, 100));
  EXPECT_DOUBLE_EQ(e.speedup, 1.04);
  EXPECT_DOUBLE_EQ(*e.low, 1.02);
  EXPECT_DOUBLE_EQ(*e.high, 1.06);
}

// Rounds are resampled whole: when the machine slows both sides alike (current always twice the
// baseline of its round) every resample's ratio is exactly 2, however much rounds differ.
TEST(BenchCompare, RoundsArePaired) {
  const SpeedupEstimate e = estimateSpeedup({180, 200, 220}, {90, 100, 110});
  EXPECT_DOUBLE_EQ(e.speedup, 2.0);
  EXPECT_DOUBLE_EQ(*e.low, 2.0);
  EXPECT_DOUBLE_EQ(*e.high, 2.0);
}

TEST(BenchCompare, FixedSeedGivesTheSameIntervalEveryTime) {
  const std::vector<double> c = {97, 131, 118, 122, 109}, b = {100, 104, 96, 112, 99};
  const SpeedupEstimate first = estimateSpeedup(c, b), second = estimateSpeedup(c, b);
  EXPECT_EQ(*first.low, *second.low);
  EXPECT_EQ(*first.high, *second.high);
  EXPECT_LE(*first.low, first.speedup);
  EXPECT_GE(*first.high, first.speedup);
}

TEST(BenchCompare, OneRoundHasNoIntervalAndIsNeverSignificant) {
  const SpeedupEstimate e = estimateSpeedup({300}, {100});
  EXPECT_DOUBLE_EQ(e.speedup, 3.0);
  EXPECT_FALSE(e.low.has_value());
  EXPECT_FALSE(e.significant);
}

TEST(BenchCompare, UnpairedOrZeroSamplesAreRejected) {
  EXPECT_THROW(estimateSpeedup({1, 2}, {1}), apps::app_error);
  EXPECT_THROW(estimateSpeedup({}, {}), apps::app_error);
  EXPECT_THROW(estimateSpeedup({1, 2}, {1, 0}), apps::app_error);
}

TEST(BenchCompare, StolenShareFromProcStat) {
  const auto before = parseCpuTimes("cpu  100 0 50 800 10 0 0 40 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n");
  ASSERT_TRUE(before);
  EXPECT_EQ((*before)[3], 800u);
  EXPECT_EQ((*before)[7], 40u);
  // +60 user, +20 system, +100 idle, +20 steal: 20 of 200 ticks stolen.
  const auto after = parseCpuTimes("cpu  160 0 70 900 10 0 0 60 0 0\n");
  EXPECT_DOUBLE_EQ(*stolenShare(before, after), 0.1);
  EXPECT_DOUBLE_EQ(*stolenShare(before, before), 0.0);
  EXPECT_FALSE(stolenShare(before, std::nullopt));
  EXPECT_FALSE(parseCpuTimes("intr 1 2 3\n"));
  EXPECT_FALSE(parseCpuTimes("cpu  1 2 3\n")); // no steal field
}

TEST(BenchCompare, LongBenchmarksOnlyWhenAskedFor) {
  auto names = [](const std::vector<BenchmarkSpec> &specs) {
    std::vector<std::string> n;
    for (const auto &s : specs)
      n.push_back(s.name);
    return n;
  };
  const std::vector<std::string> quick = {"resnet50-synthetic-throughput",
                                          "bert-mini-phase1-throughput",
                                          "efficientnet-b0-synthetic-throughput"};
  EXPECT_EQ(names(selectBenchmarks("", false)), quick);
  const auto all = names(selectBenchmarks("", true));
  EXPECT_EQ(all.size(), 6u);
  for (const char *longOne :
       {"resnet50-time-to-accuracy", "bert-mini-mlm-accuracy", "efficientnet-b0-time-to-accuracy"})
    EXPECT_NE(std::find(all.begin(), all.end(), longOne), all.end()) << longOne;
  // Naming a long benchmark runs it without --long.
  EXPECT_EQ(names(selectBenchmarks("bert-mini-mlm-accuracy", false)),
            std::vector<std::string>{"bert-mini-mlm-accuracy"});
}

TEST(BenchCompare, UnknownBenchmarkSuggestsTheNearest) {
  try {
    selectBenchmarks("resnet50-synthetic-throughput,bert-mini-mlm-acuracy", false);
    FAIL() << "expected cli_error";
  } catch (const apps::cli_error &e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("'bert-mini-mlm-acuracy'"), std::string::npos) << message;
    EXPECT_NE(message.find("did you mean bert-mini-mlm-accuracy?"), std::string::npos) << message;
  }
}

TEST(BenchCompare, FirstErrorLineOfABuildLog) {
  EXPECT_EQ(firstErrorLine("[1/9] Building x.o\nFAILED: x.o\n/src/x.cpp:3:7: error: 'y' was not "
                           "declared\n/src/z.cpp:1:1: error: later\n"),
            "/src/x.cpp:3:7: error: 'y' was not declared");
  EXPECT_EQ(firstErrorLine("-- Configuring\nCMake Error at CMakeLists.txt:4 (foo):\n  Unknown\n"),
            "CMake Error at CMakeLists.txt:4 (foo):");
  EXPECT_EQ(firstErrorLine("[1/2] a\nFAILED: b.o\nninja: build stopped\n"), "FAILED: b.o");
  EXPECT_EQ(firstErrorLine("something odd\n\n"), "something odd");
}

TEST(BenchCompare, HostClassesHaveListPricesWithTheirSource) {
  for (const char *hostClass : {"amd-epyc-2c", "intel-xeon-2c"}) {
    const auto price = listPriceOf(hostClass);
    ASSERT_TRUE(price.has_value()) << hostClass;
    EXPECT_GT(price->dollarsPerHour, 0.0);
    EXPECT_NE(price->source.find("on-demand list price"), std::string::npos) << price->source;
  }
  EXPECT_FALSE(listPriceOf("fake-cpu-2c").has_value());
}

TEST(BenchCompare, SamplesPerDollar) {
  // 250 images/s for an hour at $0.09/h: 900,000 images for 9 cents, 10 million per dollar.
  EXPECT_DOUBLE_EQ(samplesPerDollar(250, 0.09), 1e7);
  EXPECT_THROW(samplesPerDollar(250, 0), tessera::apps::app_error);
  EXPECT_THROW(samplesPerDollar(250, -1), tessera::apps::app_error);
}
