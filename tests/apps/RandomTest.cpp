#include <tessera/apps/Random.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

using namespace tessera::apps;

TEST(Random, SplitMix64MatchesThePublishedSequence) {
  // Reference: the first outputs of Vigna's splitmix64.c seeded with 0, recomputed here with the
  // published constants.
  std::uint64_t state = 0;
  auto reference = [&state] {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  SplitMix64 rng(0);
  EXPECT_EQ(rng.next(), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(reference(), 0xe220a8397b1dcdafULL);
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(rng.next(), reference());
}

TEST(Random, BelowIsInRangeAndRoughlyUniform) {
  SplitMix64 rng(42);
  std::vector<int> counts(7);
  for (int i = 0; i < 70000; ++i) {
    const auto v = rng.below(7);
    ASSERT_LT(v, 7u);
    ++counts[v];
  }
  for (int c : counts)
    EXPECT_NEAR(c, 10000, 500); // > 5 standard deviations
  for (int i = 0; i < 1000; ++i) {
    const float f = rng.unitFloat();
    ASSERT_GE(f, 0.0f);
    ASSERT_LT(f, 1.0f);
  }
}

TEST(Random, MixSeedSeparatesNearbyCounters) {
  EXPECT_EQ(mixSeed({1, 2, 3}), mixSeed({1, 2, 3}));
  EXPECT_NE(mixSeed({1, 2, 3}), mixSeed({1, 2, 4}));
  EXPECT_NE(mixSeed({1, 2, 3}), mixSeed({1, 3, 2}));
  EXPECT_NE(mixSeed({0}), mixSeed({0, 0}));
}

TEST(Random, ShuffleIsAPermutationDeterminedByTheSeed) {
  std::vector<std::uint32_t> a(100), b(100), c(100);
  std::iota(a.begin(), a.end(), 0u);
  b = c = a;
  SplitMix64 ra(9), rb(9), rc(10);
  shuffle(a, ra);
  shuffle(b, rb);
  shuffle(c, rc);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  std::vector<std::uint32_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  for (std::uint32_t i = 0; i < 100; ++i)
    EXPECT_EQ(sorted[i], i);
}
