// Encoding and decoding QUARTER (8-bit float) bytes: the one implementation the host conversions
// (poplar::convertToDeviceType) and the popops cast codelets share, so host and tiles agree bit
// for bit.
//
// The two formats are the IPU's (LLVM's Float8E4M3FNUZ and Float8E5M2FNUZ):
//   F143: 1 sign, 4 exponent, 3 mantissa bits, exponent bias 8,  largest 240
//   F152: 1 sign, 5 exponent, 2 mantissa bits, exponent bias 16, largest 57344
// with subnormals (exponent field 0), no infinities and a single NaN, the byte 0x80 (so there is
// no negative zero). A value `d` is stored as the quarter `q` with d = q * 2^scale.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace tessera {
namespace quarter {

/// The field widths of one format.
struct Layout {
  int exponentBits;
  int mantissaBits;
  int bias;
};

constexpr Layout kF143{4, 3, 8};
constexpr Layout kF152{5, 2, 16};
constexpr std::uint8_t kNaN = 0x80;

/// Packed metadata byte (bit 7: F143 when set; bits 0-5: the scale, 6-bit two's complement).
inline bool isF143(std::uint8_t metadata) { return (metadata & 0x80u) != 0; }
inline int scaleOf(std::uint8_t metadata) {
  const int raw = metadata & 0x3f;
  return raw >= 32 ? raw - 64 : raw;
}
inline const Layout &layoutOf(std::uint8_t metadata) { return isF143(metadata) ? kF143 : kF152; }

/// The largest finite magnitude of a format, unscaled (240 or 57344).
inline double largest(const Layout &l) {
  const int maxExponent = (1 << l.exponentBits) - 1;
  return std::ldexp(2.0 - std::ldexp(1.0, -l.mantissaBits), maxExponent - l.bias);
}

/// The value of quarter byte `code` under `metadata`, scale applied (NaN for 0x80). Exact: every
/// quarter value times 2^scale is a float.
inline float decode(std::uint8_t code, std::uint8_t metadata) {
  if (code == kNaN)
    return std::numeric_limits<float>::quiet_NaN();
  const Layout &l = layoutOf(metadata);
  const int mantissaMask = (1 << l.mantissaBits) - 1;
  const int exponent = (code & 0x7f) >> l.mantissaBits;
  const int mantissa = code & mantissaMask;
  // Subnormals continue the exponent-1 binade without the implicit bit.
  const int significand = exponent == 0 ? mantissa : mantissa + (1 << l.mantissaBits);
  const int unitExponent = (exponent == 0 ? 1 : exponent) - l.bias - l.mantissaBits;
  const double magnitude =
      std::ldexp(static_cast<double>(significand), unitExponent + scaleOf(metadata));
  return static_cast<float>((code & 0x80) ? -magnitude : magnitude);
}

/// `value` / 2^scale rounded to the nearest quarter of `metadata`'s format, ties to even. NaN and
/// infinities give NaN (the format has no infinity); a finite value whose rounded magnitude
/// exceeds the largest finite quarter saturates to +-largest, or gives NaN when
/// `nanOnOverflow`. Values that round to zero give 0x00 whatever their sign.
inline std::uint8_t encode(double value, std::uint8_t metadata, bool nanOnOverflow = false) {
  if (std::isnan(value) || std::isinf(value))
    return kNaN;
  const Layout &l = layoutOf(metadata);
  const bool negative = value < 0;
  const double a = std::ldexp(std::fabs(value), -scaleOf(metadata)); // exact (power of two)
  if (a == 0)
    return 0;
  const std::uint8_t signBit = negative ? 0x80 : 0;
  const int maxExponent = (1 << l.exponentBits) - 1;
  const std::uint8_t largestCode =
      static_cast<std::uint8_t>((maxExponent << l.mantissaBits) | ((1 << l.mantissaBits) - 1));
  if (std::isinf(a) || a > 2 * largest(l)) // far beyond the format, whatever the rounding
    return nanOnOverflow ? kNaN : static_cast<std::uint8_t>(signBit | largestCode);
  int binade;
  std::frexp(a, &binade); // a = f * 2^binade, f in [0.5, 1)
  // Biased exponent of a's binade; below 1 the value is subnormal and uses binade 1's quantum.
  const int biased = std::max(binade - 1 + l.bias, 1);
  const int quantumExponent = biased - l.bias - l.mantissaBits;
  // The multiple of the quantum nearest to a, ties to even; exact in double.
  const double q = std::ldexp(a, -quantumExponent);
  double rounded = std::floor(q);
  const double rest = q - rounded;
  if (rest > 0.5 || (rest == 0.5 && std::fmod(rounded, 2.0) != 0))
    rounded += 1;
  if (std::ldexp(rounded, quantumExponent) > largest(l))
    return nanOnOverflow ? kNaN : static_cast<std::uint8_t>(signBit | largestCode);
  if (rounded == 0)
    return 0;
  // Normal significands lie in [2^m, 2^(m+1)]: the implicit bit carries into the exponent field,
  // so one sum encodes them; subnormals (biased == 1 with rounded < 2^m) come out the same way.
  const int code = (biased - 1) * (1 << l.mantissaBits) + static_cast<int>(rounded);
  return static_cast<std::uint8_t>(signBit | code);
}

} // namespace quarter
} // namespace tessera
