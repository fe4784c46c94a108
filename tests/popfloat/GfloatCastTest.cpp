// castNativeToGfloat / castGfloatToNative against reference/Gfloat.hpp, bit for bit: every
// deterministic rounding mode, FLOAT and HALF inputs, one tile and 16 tiles, on formats of every
// storage kind (CHAR and SHORT codes, HALF and FLOAT values) probed at every value, midpoint and
// quarter point, past the largest value, at zero, infinities and NaN.
#include "GfloatTestHarness.hpp"

#include <reference/Common.hpp>

using namespace gfloat_test;
using popfloat::experimental::FormatType;
using popfloat::experimental::SpecType;

namespace {

struct Case {
  const char *name;
  reference::GfloatFormat format;
  FormatType expectedType;
  poplar::Type storage;
};

const Case kCases[] = {
    {"gf8_1_4_3", {3, 4, 7, true, true}, FormatType::MIN_NORM_ALIGN_GF8, poplar::CHAR},
    {"gf8_1_5_2", {2, 5, 15, true, true}, FormatType::ONE_FIVE_TWO_GF8, poplar::CHAR},
    {"gf8_1_5_2_noInfs", {2, 5, 15, true, false}, FormatType::MAX_NORM_ALIGN_GF8, poplar::CHAR},
    {"gf8_1_3_4_noDenorms", {4, 3, 3, false, true}, FormatType::MIN_NORM_ALIGN_GF8, poplar::CHAR},
    {"gf8_1_0_7_blockFloat", {7, 0, 0, true, false}, FormatType::MIN_NORM_ALIGN_GF8, poplar::CHAR},
    {"gf8_1_2_5_negBias", {5, 2, -2, true, false}, FormatType::MIN_NORM_ALIGN_GF8, poplar::CHAR},
    {"bfloat16", {7, 8, 127, false, true}, FormatType::BFLOAT16, poplar::SHORT},
    {"gf16_1_6_9", {9, 6, 31, true, true}, FormatType::ENABLE_DENORM_GF16, poplar::SHORT},
    {"quantisedFp16_1_4_6", {6, 4, 7, true, true}, FormatType::QUANTISED_FP16, poplar::HALF},
};

const RoundType kModes[] = {RoundType::RZ, RoundType::RN, RoundType::RA, RoundType::RU,
                            RoundType::RD};

/// Every probe for 8-bit formats; an evenly spread subset of at most ~6000 for larger ones.
std::vector<double> probes(const reference::GfloatFormat &f) {
  std::vector<double> all = probeValues(f);
  if (all.size() <= 6000)
    return all;
  std::vector<double> some;
  const std::size_t step = all.size() / 6000 + 1;
  for (std::size_t i = 0; i < all.size(); i += step)
    some.push_back(all[i]);
  for (std::size_t i = all.size() - 8; i < all.size(); ++i)
    some.push_back(all[i]);
  return some;
}

using Param = std::tuple<int, poplar::Type, Layout>;

class GfloatCastModes : public ::testing::TestWithParam<Param> {};

TEST_P(GfloatCastModes, EveryDeterministicModeMatchesTheReferenceBitForBit) {
  const Case &c = kCases[std::get<0>(GetParam())];
  const poplar::Type inType = std::get<1>(GetParam());
  const reference::GfloatFormat &f = c.format;
  const auto values = reference::gfloatPositiveValues(f);
  const std::vector<double> x = reference::roundTo(inType, probes(f));

  Harness h(std::get<2>(GetParam()));
  auto &g = h.graph();
  const auto format = formatConfig(f, poplar::FLOAT);
  ASSERT_EQ(format.getFormatType(), c.expectedType);
  ASSERT_EQ(format.getStorageType(), c.storage);
  auto in = h.input(inType, x, "x");
  for (bool nanoo : {false, true}) {
    for (RoundType mode : kModes) {
      const GfloatCast::RoundConfig round(mode, 24, poplar::FLOAT);
      GfloatCast packed(format, round, nanoo);
      GfloatCast native(format, round, nanoo, SpecType::FP32);
      const std::string tag =
          popfloat::experimental::roundTypeToString(mode) + (nanoo ? "_nanoo" : "");
      h.output("packed_" + tag, packed.castNativeToGfloat(g, in, h.prog()));
      h.output("roundTrip_" + tag,
               packed.castGfloatToNative(g, packed.castNativeToGfloat(g, in, h.prog()), h.prog()));
      h.output("native_" + tag, native.castNativeToGfloat(g, in, h.prog()));
    }
  }
  auto out = h.run();
  for (bool nanoo : {false, true}) {
    for (RoundType mode : kModes) {
      const std::string tag =
          popfloat::experimental::roundTypeToString(mode) + (nanoo ? "_nanoo" : "");
      const auto &packed = out.at("packed_" + tag);
      const auto &roundTrip = out.at("roundTrip_" + tag);
      const auto &native = out.at("native_" + tag);
      for (std::size_t i = 0; i < x.size(); ++i) {
        // Float subnormals are zeros on tiles: as inputs, and as FLOAT results.
        const double expected =
            reference::gfloatRound(tileFloat(x[i]), f, toReference(mode), nanoo);
        ASSERT_TRUE(sameValue(native[i], tileFloat(expected)))
            << c.name << " " << tag << " x=" << x[i] << ": " << native[i] << " vs " << expected;
        const unsigned code = reference::gfloatEncode(expected, f, values);
        const double stored = reference::gfloatCodeValue(code, f);
        if (c.storage == poplar::CHAR || c.storage == poplar::SHORT)
          ASSERT_EQ(static_cast<unsigned>(packed[i]), code)
              << c.name << " " << tag << " x=" << x[i];
        else
          ASSERT_TRUE(sameValue(packed[i], expected)) << c.name << " " << tag << " x=" << x[i];
        const double back =
            tileFloat(c.storage == poplar::CHAR || c.storage == poplar::SHORT ? stored : expected);
        ASSERT_TRUE(sameValue(roundTrip[i], back))
            << c.name << " " << tag << " x=" << x[i] << ": " << roundTrip[i] << " vs " << back;
      }
    }
  }
}

std::string paramName(const ::testing::TestParamInfo<Param> &info) {
  return std::string(kCases[std::get<0>(info.param)].name) + "_" +
         std::get<1>(info.param).toString() + "_" +
         (std::get<2>(info.param) == Layout::SINGLE_TILE ? "1tile" : "16tiles");
}

INSTANTIATE_TEST_SUITE_P(Formats, GfloatCastModes,
                         ::testing::Combine(::testing::Range(0, int(std::size(kCases))),
                                            ::testing::Values(poplar::FLOAT, poplar::HALF),
                                            ::testing::Values(Layout::SINGLE_TILE,
                                                              Layout::MULTI_TILE)),
                         paramName);

TEST(GfloatCast, EveryEightBitCodeUnpacksToItsValue) {
  for (const reference::GfloatFormat f :
       {reference::GfloatFormat{3, 4, 7, true, true}, reference::GfloatFormat{4, 3, 3, false, true},
        reference::GfloatFormat{2, 5, 15, true, false}}) {
    for (poplar::Type outType : {poplar::FLOAT, poplar::HALF}) {
      if (outType == poplar::HALF && formatConfig(f, poplar::FLOAT).getNativeType() != poplar::HALF)
        continue; // its values are not all halves
      Harness h(Layout::MULTI_TILE);
      std::vector<double> codes(256);
      for (unsigned c = 0; c < 256; ++c)
        codes[c] = c;
      auto in = h.input(poplar::CHAR, codes, "codes");
      GfloatCast cast(formatConfig(f, poplar::FLOAT),
                      GfloatCast::RoundConfig(RoundType::RN, 24, poplar::FLOAT), false,
                      SpecType::AUTO, outType == poplar::HALF ? SpecType::FP16 : SpecType::FP32);
      h.output("values", cast.castGfloatToNative(h.graph(), in, h.prog()));
      const auto values = h.run().at("values");
      for (unsigned c = 0; c < 256; ++c)
        EXPECT_TRUE(sameValue(values[c], reference::gfloatCodeValue(c, f)))
            << "code " << c << " man " << f.man << ": " << values[c];
    }
  }
}

TEST(GfloatCast, InPlaceRoundsTheTensorItself) {
  const reference::GfloatFormat f{6, 4, 7, true, true}; // values are halves: stored as HALF
  for (poplar::Type type : {poplar::FLOAT, poplar::HALF}) {
    Harness h(Layout::MULTI_TILE);
    const auto x = reference::roundTo(type, reference::randomValues(500, 7, -300.0, 300.0));
    auto t = h.input(type, x, "x");
    GfloatCast cast(formatConfig(f, poplar::FLOAT),
                    GfloatCast::RoundConfig(RoundType::RN, 24, poplar::FLOAT), false,
                    type == poplar::HALF ? SpecType::FP16 : SpecType::FP32);
    ASSERT_TRUE(cast.inPlaceOp(type));
    cast.castNativeToGfloatInPlace(h.graph(), t, h.prog());
    h.output("x", t);
    const auto out = h.run().at("x");
    for (std::size_t i = 0; i < x.size(); ++i)
      EXPECT_TRUE(
          sameValue(out[i], reference::gfloatRound(x[i], f, reference::GfloatRound::RN, false)))
          << x[i];
  }
}

TEST(GfloatCast, Float32FormatKeepsFloatValues) {
  // 1/8/12: wider than half, more than 16 bits: QUANTISED_FP32, stored as FLOAT.
  const reference::GfloatFormat f{12, 8, 127, true, true};
  const auto format = formatConfig(f, poplar::FLOAT);
  ASSERT_EQ(format.getFormatType(), FormatType::QUANTISED_FP32);
  ASSERT_EQ(format.getStorageType(), poplar::FLOAT);
  for (Layout layout : {Layout::SINGLE_TILE, Layout::MULTI_TILE}) {
    Harness h(layout);
    auto x = reference::randomValues(2000, 11, -1e3, 1e3);
    x.push_back(3.4e38);
    x.push_back(1e-40);
    x.push_back(-1.17549435e-38);
    x = reference::roundTo(poplar::FLOAT, x);
    auto in = h.input(poplar::FLOAT, x, "x");
    for (RoundType mode : kModes) {
      GfloatCast cast(format, GfloatCast::RoundConfig(mode, 24, poplar::FLOAT), true);
      h.output(popfloat::experimental::roundTypeToString(mode),
               cast.castNativeToGfloat(h.graph(), in, h.prog()));
    }
    const auto out = h.run();
    for (RoundType mode : kModes) {
      const auto &y = out.at(popfloat::experimental::roundTypeToString(mode));
      for (std::size_t i = 0; i < x.size(); ++i) {
        // A subnormal float input is a zero on the tile; a result below float's smallest normal
        // is stored as a zero.
        const double expected =
            tileFloat(reference::gfloatRound(tileFloat(x[i]), f, toReference(mode), true));
        ASSERT_TRUE(sameValue(y[i], expected)) << x[i] << ": " << y[i] << " vs " << expected;
      }
    }
  }
}

TEST(GfloatCast, IeeeHalfFromFloatRoundsTowardZeroWhereTheIpuWouldNot) {
  const auto format = GfloatCast::FormatConfig(10, 5, 15, true, true, poplar::FLOAT);
  EXPECT_EQ(format.getFormatType(), FormatType::IEEE_FP16);
  EXPECT_EQ(format.getStorageType(), poplar::HALF);
  Harness h(Layout::SINGLE_TILE);
  const std::vector<double> x{1.0 + 0x1.ffp-11, -1.0 - 0x1.ffp-11, 70000.0};
  auto in = h.input(poplar::FLOAT, x, "x");
  GfloatCast cast(format, GfloatCast::RoundConfig(RoundType::RZ, 24, poplar::FLOAT), false);
  h.output("y", cast.castNativeToGfloat(h.graph(), in, h.prog()));
  const auto y = h.run().at("y");
  EXPECT_EQ(y[0], 1.0);
  EXPECT_EQ(y[1], -1.0);
  EXPECT_EQ(y[2], 65504.0);
}

} // namespace
