// QUARTER host conversions (poplar::convertToDeviceType / convertFromDeviceType with a
// QuarterMetadata) and QuarterMetadata packing, against references written here from the
// format definitions alone:
//   F143: sign, 4 exponent bits, 3 mantissa bits, bias 8;  F152: sign, 5, 2, bias 16;
//   exponent field 0 = subnormal (no implicit bit, exponent 1 - bias); 0x80 = the only NaN;
//   no infinities; value = quarter * 2^scale.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <vector>

#include <poplar/Half.hpp>
#include <poplar/Quarter.hpp>
#include <poplar/TypeConversion.hpp>

#include "ErrorMatchers.hpp"

using namespace poplar;
using Format = QuarterMetadata::Format;

namespace {

struct FormatSpec {
  Format format;
  int exponentBits;
  int mantissaBits;
  int bias;
};
const FormatSpec kFormats[] = {{Format::F143, 4, 3, 8}, {Format::F152, 5, 2, 16}};
const int kScales[] = {-32, -14, -7, -1, 0, 1, 5, 8, 31};

/// The value of `code` by the textbook formula (-1)^s * 2^(e - bias) * (1 + m / 2^M), or
/// 2^(1 - bias) * (m / 2^M) when e == 0, scaled by 2^scale. NaN for 0x80.
double referenceValue(const FormatSpec &f, unsigned code, int scale) {
  if (code == 0x80)
    return std::numeric_limits<double>::quiet_NaN();
  const unsigned sign = code >> 7;
  const unsigned e = (code >> f.mantissaBits) & ((1u << f.exponentBits) - 1);
  const unsigned m = code & ((1u << f.mantissaBits) - 1);
  const double fraction = double(m) / double(1u << f.mantissaBits);
  const double magnitude = e == 0 ? std::pow(2.0, 1 - f.bias) * fraction
                                  : std::pow(2.0, int(e) - f.bias) * (1 + fraction);
  return (sign ? -1.0 : 1.0) * magnitude * std::pow(2.0, scale);
}

std::vector<unsigned char> allCodes() {
  std::vector<unsigned char> codes(256);
  for (unsigned i = 0; i < 256; ++i)
    codes[i] = static_cast<unsigned char>(i);
  return codes;
}

/// The code a value should become, by exhaustive search: the non-NaN code nearest in value,
/// ties to the code with an even mantissa (least significant bit 0). Zero is 0x00 only.
unsigned nearestCode(const FormatSpec &f, double x, int scale) {
  // Beyond the largest the nearest is the largest of that sign (said outright: a difference
  // like 1e30 - 240 would round to 1e30 for every code and tie them all).
  if (std::fabs(x) >= referenceValue(f, 0x7f, scale))
    return x < 0 ? 0xff : 0x7f;
  unsigned best = 0;
  double bestDistance = std::fabs(x);
  for (unsigned c = 1; c < 256; ++c) {
    if (c == 0x80)
      continue;
    const double d = std::fabs(referenceValue(f, c, scale) - x);
    if (d < bestDistance || (d == bestDistance && (c & 1) == 0 && (best & 1) == 1)) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

/// Largest magnitude, and the magnitude from which rounding overflows (largest plus half the
/// top binade's spacing: exactly there, ties-to-even rounds away from the odd largest).
double largest(const FormatSpec &f, int scale) { return referenceValue(f, 0x7f, scale); }
double overflowThreshold(const FormatSpec &f, int scale) {
  const double spacing = referenceValue(f, 0x7f, scale) - referenceValue(f, 0x7e, scale);
  return largest(f, scale) + spacing / 2;
}

bool sameFloat(double expected, float got) {
  if (std::isnan(expected))
    return std::isnan(got);
  return double(got) == expected && std::signbit(double(got)) == std::signbit(expected);
}

} // namespace

TEST(QuarterType, IsOneByteAndRequiresMetadata) {
  EXPECT_EQ(QUARTER.size(), 1u);
  EXPECT_EQ(QUARTER_METADATA.size(), 1u);
  EXPECT_TRUE(QUARTER.requiresMetadata());
  EXPECT_FALSE(QUARTER_METADATA.requiresMetadata());
  EXPECT_FALSE(HALF.requiresMetadata());
  EXPECT_EQ(QUARTER.toString(), "quarter");
  EXPECT_EQ(QUARTER_METADATA.toString(), "quarter_metadata");
  EXPECT_NE(QUARTER, QUARTER_METADATA);
}

TEST(QuarterMetadataPacking, FormatBitAndSixBitScale) {
  EXPECT_EQ(QuarterMetadata(Format::F143, 0).getBinary(), 0x80);
  EXPECT_EQ(QuarterMetadata(Format::F152, 0).getBinary(), 0x00);
  EXPECT_EQ(QuarterMetadata(Format::F143, -1).getBinary(), 0x80 | 0x3f);
  EXPECT_EQ(QuarterMetadata(Format::F152, 5).getBinary(), 0x05);
  EXPECT_EQ(QuarterMetadata(Format::F152, -32).getBinary(), 0x20);
  for (const auto &f : kFormats)
    for (int scale = -32; scale <= 31; ++scale) {
      const QuarterMetadata md(f.format, static_cast<signed char>(scale));
      EXPECT_EQ(md.getFormat(), f.format);
      EXPECT_EQ(md.getScale(), scale);
      EXPECT_EQ((md.getBinary() & 0x40), 0) << "bit 6 is unused";
      const QuarterMetadata unpacked(md.getBinary());
      EXPECT_EQ(unpacked, md);
      EXPECT_EQ(unpacked.data(), md.getBinary());
    }
  EXPECT_NE(QuarterMetadata(Format::F143, 1), QuarterMetadata(Format::F152, 1));
  QuarterMetadata md;
  md.data() = 0x83;
  EXPECT_EQ(md.getFormat(), Format::F143);
  EXPECT_EQ(md.getScale(), 3);
  std::ostringstream os;
  os << QuarterMetadata(Format::F152, -4);
  EXPECT_EQ(os.str(), "F152 scale -4");
}

TEST(QuarterMetadataPacking, ScaleOutOfRangeIsRefused) {
  EXPECT_TRUE(testerrors::throwsWithMessage<index_error>([] { QuarterMetadata(Format::F143, 32); },
                                                         {"scale 32", "[-32, 31]"}));
  EXPECT_TRUE(testerrors::throwsWithMessage<index_error>([] { QuarterMetadata(Format::F152, -33); },
                                                         {"scale -33"}));
}

// Every one of the 256 codes of both formats, at several scales, decodes bit-exactly (to float
// and double) to the formula's value.
TEST(QuarterConversion, EveryCodeDecodesToTheFormatValue) {
  const auto codes = allCodes();
  for (const auto &f : kFormats)
    for (int scale : kScales) {
      const QuarterMetadata md(f.format, static_cast<signed char>(scale));
      std::vector<float> floats(256);
      std::vector<double> doubles(256);
      convertFromDeviceType(QUARTER, md, codes.data(), ArrayRef<float>(floats));
      convertFromDeviceType(QUARTER, md, codes.data(), ArrayRef<double>(doubles));
      for (unsigned c = 0; c < 256; ++c) {
        const double expected = referenceValue(f, c, scale);
        EXPECT_TRUE(sameFloat(expected, floats[c]))
            << md << " code 0x" << std::hex << c << std::dec << ": expected " << expected
            << ", got " << floats[c];
        EXPECT_TRUE(sameFloat(expected, static_cast<float>(doubles[c])));
      }
    }
}

TEST(QuarterConversion, FormatsMatchTheIpuFloat8Definitions) {
  // F143 is LLVM's Float8E4M3FNUZ, F152 its Float8E5M2FNUZ: largest 240 and 57344, smallest
  // subnormals 2^-10 and 2^-17, a single NaN and no negative zero.
  EXPECT_EQ(largest(kFormats[0], 0), 240.0);
  EXPECT_EQ(largest(kFormats[1], 0), 57344.0);
  EXPECT_EQ(referenceValue(kFormats[0], 1, 0), std::ldexp(1.0, -10));
  EXPECT_EQ(referenceValue(kFormats[1], 1, 0), std::ldexp(1.0, -17));
  const unsigned char nanCode = 0x80;
  float v = 0;
  convertFromDeviceType(QUARTER, QuarterMetadata(Format::F143, 0), &nanCode,
                        ArrayRef<float>(&v, 1));
  EXPECT_TRUE(std::isnan(v));
}

namespace {

/// Inputs that exercise every rounding case: each code's value, the midpoints between
/// neighbours (ties), points just either side of them, values beyond the largest and below
/// the smallest, zeros and both signs.
std::vector<float> roundingInputs(const FormatSpec &f, int scale) {
  std::vector<double> values;
  std::vector<double> positives;
  for (unsigned c = 0; c < 0x80; ++c)
    positives.push_back(referenceValue(f, c, scale));
  for (std::size_t i = 0; i < positives.size(); ++i) {
    values.push_back(positives[i]);
    if (i + 1 < positives.size()) {
      const double mid = (positives[i] + positives[i + 1]) / 2;
      values.push_back(mid);
      values.push_back(std::nextafter(static_cast<float>(mid), 0.0f));
      values.push_back(std::nextafter(static_cast<float>(mid), HUGE_VALF));
      values.push_back(positives[i] + (positives[i + 1] - positives[i]) * 0.3);
    }
  }
  const double top = overflowThreshold(f, scale);
  for (double x : {top, double(std::nextafter(float(top), 0.0f)),
                   double(std::nextafter(float(top), HUGE_VALF)), largest(f, scale) * 1.01,
                   largest(f, scale) * 4, 1e30, positives[1] / 2, positives[1] / 4, 1e-30, 0.0})
    values.push_back(x);
  std::vector<float> out;
  for (double v : values) {
    out.push_back(static_cast<float>(v));
    out.push_back(-static_cast<float>(v));
  }
  return out;
}

} // namespace

// Float to quarter: each input against the exhaustive nearest-value search (ties to even),
// saturating beyond the largest, or NaN there when nanOnOverflow asks.
TEST(QuarterConversion, RoundsToNearestEvenAndSaturatesOrGivesNaN) {
  for (const auto &f : kFormats)
    for (int scale : kScales) {
      const QuarterMetadata md(f.format, static_cast<signed char>(scale));
      const auto inputs = roundingInputs(f, scale);
      std::vector<unsigned char> saturated(inputs.size()), nanned(inputs.size());
      convertToDeviceType(QUARTER, md, ArrayRef<float>(inputs), saturated.data());
      convertToDeviceType(QUARTER, md, ArrayRef<float>(inputs), nanned.data(), true);
      const double threshold = overflowThreshold(f, scale);
      for (std::size_t i = 0; i < inputs.size(); ++i) {
        const double x = inputs[i];
        const unsigned expected = nearestCode(f, x, scale);
        EXPECT_EQ(saturated[i], expected) << md << " input " << x;
        const unsigned expectedNan = std::fabs(x) >= threshold ? 0x80 : expected;
        EXPECT_EQ(nanned[i], expectedNan) << md << " input " << x << " (nanOnOverflow)";
      }
    }
}

TEST(QuarterConversion, NaNAndInfinitiesBecomeNaN) {
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity()};
  for (const auto &f : kFormats) {
    unsigned char out[3];
    convertToDeviceType(QUARTER, QuarterMetadata(f.format, 0), ArrayRef<float>(specials, 3), out);
    for (unsigned char c : out)
      EXPECT_EQ(c, 0x80);
  }
}

TEST(QuarterConversion, HalfAndDoubleHostValues) {
  const QuarterMetadata md(Format::F143, -2);
  const std::vector<double> doubles = {0.25, -1.5, 3.0, 1000.0};
  std::vector<half> halves;
  for (double d : doubles)
    halves.push_back(half(static_cast<float>(d)));
  std::vector<unsigned char> fromDouble(4), fromHalf(4);
  convertToDeviceType(QUARTER, md, ArrayRef<double>(doubles), fromDouble.data());
  convertToDeviceType(QUARTER, md, ArrayRef<half>(halves), fromHalf.data());
  EXPECT_EQ(fromDouble, fromHalf);
  std::vector<half> back(4);
  convertFromDeviceType(QUARTER, md, fromHalf.data(), ArrayRef<half>(back));
  EXPECT_EQ(float(back[0]), 0.25f);
  EXPECT_EQ(float(back[1]), -1.5f);
  EXPECT_EQ(float(back[2]), 3.0f);
  EXPECT_EQ(float(back[3]), 60.0f) << "240 * 2^-2 saturates";
}

TEST(QuarterConversion, WithoutMetadataIsRefused) {
  const std::vector<float> values = {1.0f};
  unsigned char out[1];
  EXPECT_TRUE(testerrors::throwsWithMessage<type_error>(
      [&] { convertToDeviceType(QUARTER, ArrayRef<float>(values), out); },
      {"quarter", "without metadata"}));
  EXPECT_TRUE(testerrors::throwsWithMessage<type_error>(
      [&] {
        convertToDeviceType(FLOAT, QuarterMetadata(Format::F143, 0), ArrayRef<float>(values), out);
      },
      {"'float' takes no metadata"}));
}
