// popfloat::experimental::singleToHalf / halfToSingle against a reference that finds the nearest
// half by searching the sorted list of every finite half (independent of the bit manipulation
// under test), on every half, every midpoint between neighbours, and values a hair either side.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <popfloat/experimental/CastToHalf.hpp>
#include <popfloat/experimental/codelets.hpp>

using popfloat::experimental::halfToSingle;
using popfloat::experimental::singleToHalf;

namespace {

/// The value of a non-negative finite half pattern, from the binary16 definition.
double halfValue(std::uint16_t h) {
  const int exponent = (h >> 10) & 0x1f;
  const int fraction = h & 0x3ff;
  if (exponent == 0)
    return std::ldexp(static_cast<double>(fraction), -24);
  return std::ldexp(1.0 + fraction / 1024.0, exponent - 15);
}

/// Expected result for a finite float: the nearest half (ties to the even pattern), or for
/// magnitudes at or beyond the rounding boundary 65520, the largest half or a NaN.
std::uint16_t reference(float f, bool nanOnOverflow) {
  static const std::vector<double> positive = [] {
    std::vector<double> v(0x7c00);
    for (std::uint16_t h = 0; h < 0x7c00; ++h)
      v[h] = halfValue(h);
    return v;
  }();
  const std::uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  const double a = std::fabs(static_cast<double>(f));
  if (a >= 65520.0)
    return nanOnOverflow ? 0x7e00 | sign : 0x7bff | sign;
  const auto above = std::lower_bound(positive.begin(), positive.end(), a);
  if (above == positive.begin())
    return sign;
  const auto upper = static_cast<std::uint16_t>(above - positive.begin());
  if (above == positive.end() || *above == a)
    return sign | static_cast<std::uint16_t>(above == positive.end() ? 0x7bff : upper);
  const std::uint16_t lower = upper - 1;
  const double below = a - positive[lower], aboveBy = positive[upper] - a;
  if (below < aboveBy || (below == aboveBy && (lower & 1) == 0))
    return sign | lower;
  return sign | upper;
}

float fromBits(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

} // namespace

TEST(PopfloatCastToHalf, EveryHalfMidpointAndNeighbourRoundsToTheNearestTiesToEven) {
  std::vector<float> values;
  for (std::uint16_t h = 0; h < 0x7c00; ++h) {
    const float v = static_cast<float>(halfValue(h));
    values.push_back(v);
    values.push_back(std::nextafter(v, 0.0f));
    values.push_back(std::nextafter(v, 1e9f));
    if (h + 1 < 0x7c00) {
      const float mid = static_cast<float>((halfValue(h) + halfValue(h + 1)) / 2); // exact
      values.push_back(mid);
      values.push_back(std::nextafter(mid, 0.0f));
      values.push_back(std::nextafter(mid, 1e9f));
    }
  }
  std::mt19937 rng(11);
  std::uniform_int_distribution<std::uint32_t> bits(0, 0x7f7fffffu); // every finite magnitude
  for (int i = 0; i < 200000; ++i)
    values.push_back(fromBits(bits(rng)));
  for (float v : values)
    for (float s : {v, -v})
      for (bool nanoo : {false, true})
        ASSERT_EQ(singleToHalf(s, nanoo), reference(s, nanoo)) << s << " nanoo " << nanoo;
}

TEST(PopfloatCastToHalf, OverflowSaturatesOrGivesNaNAndSpecialValuesStay) {
  EXPECT_EQ(singleToHalf(65519.0f), 0x7bff);  // rounds down to 65504
  EXPECT_EQ(singleToHalf(65520.0f), 0x7bff);  // would round to infinity: saturates
  EXPECT_EQ(singleToHalf(-1e30f), 0xfbff);
  EXPECT_EQ(singleToHalf(1e30f, true), 0x7e00);
  EXPECT_EQ(singleToHalf(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(singleToHalf(-std::numeric_limits<float>::infinity(), true), 0xfc00);
  const std::uint16_t quiet = singleToHalf(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(quiet & 0x7e00, 0x7e00);
  const std::uint16_t signalling = singleToHalf(fromBits(0x7f800001u)); // fraction only low bits
  EXPECT_EQ(signalling & 0x7c00, 0x7c00);
  EXPECT_EQ(signalling & 0x0200, 0);
  EXPECT_NE(signalling & 0x03ff, 0);
}

TEST(PopfloatCastToHalf, HalfToSingleIsExactForEveryPattern) {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    const float f = halfToSingle(bits);
    const bool nan = (bits & 0x7c00) == 0x7c00 && (bits & 0x3ff) != 0;
    if (nan) {
      ASSERT_TRUE(std::isnan(f)) << h;
      continue;
    }
    const double magnitude = (bits & 0x7fff) == 0x7c00 ? std::numeric_limits<double>::infinity()
                                                         : halfValue(bits & 0x7fff);
    ASSERT_EQ(static_cast<double>(f), (bits & 0x8000) ? -magnitude : magnitude) << h;
  }
}
