// The gfloat cast in integer arithmetic on a float's bits: rounding a float to a gfloat format in
// every RoundType, packing the result into a code and unpacking codes. Scalar, branch-light code
// the cast vertices run per element; the tests compare it with tests/reference's Gfloat.hpp,
// which is written in double arithmetic straight from the format's definition.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace tessera::codelets::popfloat {

/// Rounding modes, numbered as popfloat::experimental::RoundType.
enum class Round : unsigned { INV, RZ, RN, RA, RU, RD, SR, SX };
/// SX noise densities, numbered as popfloat::experimental::SRDensityType.
enum class Density : unsigned {
  INVALID,
  UNIFORM,
  NORMAL,
  TRUNCATED_NORMAL,
  BERNOULLI,
  LOGISTIC,
  TRUNCATED_LOGISTIC,
  LAPLACE,
  TRUNCATED_LAPLACE,
  LOGIT_NORMAL,
  TRUNCATED_LOGIT_NORMAL
};

/// Densities whose noise is a sample drawn per element (sampleNoise in the vertices) and added to
/// the fraction: centred ones ([-0.5, 0.5], then round to nearest, ties up) or not ([0, 1], then
/// truncate).
constexpr bool isSampledDensity(Density d) {
  return d != Density::INVALID && d != Density::UNIFORM && d != Density::BERNOULLI;
}
constexpr bool isCentredDensity(Density d) {
  return d == Density::NORMAL || d == Density::TRUNCATED_NORMAL || d == Density::LAPLACE ||
         d == Density::TRUNCATED_LAPLACE;
}

/// A gfloat format and the constants every cast of it needs.
struct GfloatFormat {
  unsigned man = 10, exp = 5;
  int bias = 15;
  bool denorms = true, infsAndNans = true;

  /// The largest exponent field of a finite value (0: only denormal-style values).
  unsigned maxExpField() const {
    if (exp == 0)
      return 0;
    return (1u << exp) - 1u - (infsAndNans ? 1u : 0u);
  }
  bool hasNormals() const { return maxExpField() >= 1; }
  /// log2 of the smallest normal, and of the spacing of denormals.
  int minNormalExp() const { return 1 - bias; }
  int denormUlpExp() const { return 1 - bias - static_cast<int>(man); }
  double maxValue() const {
    if (hasNormals())
      return std::ldexp(2.0 - std::ldexp(1.0, -static_cast<int>(man)),
                        static_cast<int>(maxExpField()) - bias);
    return std::ldexp(static_cast<double>((1u << man) - 1u), denormUlpExp());
  }
  unsigned signBit() const { return 1u << (man + exp); }
  unsigned maxCode() const {
    const unsigned mantissaOnes = (1u << man) - 1u;
    return hasNormals() ? (maxExpField() << man) | mantissaOnes : mantissaOnes;
  }
};

/// The params tensor's layout: {man, exp, bias, flags}; flag bits below.
inline constexpr unsigned kParamCount = 4;
inline constexpr int kDenormFlag = 1, kInfNanFlag = 2;

inline GfloatFormat formatFromParams(const int *p) {
  GfloatFormat f;
  f.man = static_cast<unsigned>(p[0]);
  f.exp = static_cast<unsigned>(p[1]);
  f.bias = p[2];
  f.denorms = (p[3] & kDenormFlag) != 0;
  f.infsAndNans = (p[3] & kInfNanFlag) != 0;
  return f;
}

/// The packed parameter word (see CastToGfloat.hpp) -> params tensor contents.
inline void paramsFromPackedWord(unsigned w, int *p) {
  p[0] = static_cast<int>(w & 0xFFu);
  p[1] = static_cast<int>((w >> 8) & 0xFFu);
  p[2] = static_cast<int>(static_cast<std::int8_t>(static_cast<std::uint8_t>((w >> 16) & 0xFFu)));
  p[3] = ((w >> 24) & 1u ? kDenormFlag : 0) | ((w >> 25) & 1u ? kInfNanFlag : 0);
}

/// What a cast needs besides the format: mode, overflow behaviour and the SX noise parameters.
struct RoundingSpec {
  Round mode = Round::RN;
  bool nanoo = false;
  unsigned numSRBits = 32;
  Density density = Density::INVALID;
  float noiseMin = 0.0f, noiseMax = 1.0f, noiseOffset = 0.0f, noiseScale = 0.0f;
  unsigned long long roundDownThreshold = 0; ///< BERNOULLI: round down iff word < threshold.
};

inline float canonicalNaN() { return std::numeric_limits<float>::quiet_NaN(); }

/// Whether a magnitude strictly between two neighbours goes up: `rem` of `2^shift` is the part
/// below the lower neighbour, `lowOdd` the parity of the lower neighbour's code, `word` 32
/// random bits, `sample` the element's noise sample of a sampled density.
inline bool roundsUp(const RoundingSpec &r, bool negative, std::uint64_t rem, unsigned shift,
                     bool lowOdd, std::uint32_t word, double sample) {
  if (rem == 0)
    return false;
  const std::uint64_t half = std::uint64_t{1} << (shift - 1);
  switch (r.mode) {
  case Round::RZ:
    return false;
  case Round::RN:
    return rem > half || (rem == half && lowOdd);
  case Round::RA:
    return rem >= half;
  case Round::RU:
    return !negative;
  case Round::RD:
    return negative;
  case Round::SR:
  case Round::SX: {
    if (r.mode == Round::SX && r.density == Density::BERNOULLI)
      return !(word < r.roundDownThreshold);
    if (r.mode == Round::SX && isSampledDensity(r.density)) {
      const double f = std::ldexp(static_cast<double>(rem), -static_cast<int>(shift));
      return f + sample >= (isCentredDensity(r.density) ? 0.5 : 1.0);
    }
    const unsigned n = r.mode == Round::SR ? 32u : r.numSRBits;
    // The top n bits of the fraction rem / 2^shift, and n random bits.
    const std::uint64_t fraction = shift >= n ? rem >> (shift - n) : rem << (n - shift);
    const std::uint64_t noise = static_cast<std::uint64_t>(word) >> (32 - n);
    if (r.mode == Round::SX && r.density == Density::UNIFORM) {
      const double f = std::ldexp(static_cast<double>(rem), -static_cast<int>(shift));
      const double u = static_cast<double>(r.noiseMin) +
                       (static_cast<double>(r.noiseMax) - static_cast<double>(r.noiseMin)) *
                           std::ldexp(static_cast<double>(noise), -static_cast<int>(n));
      return f + u >= 1.0;
    }
    return fraction + noise >= (std::uint64_t{1} << n);
  }
  case Round::INV:
    break;
  }
  return false;
}

/// `x` rounded to format `f` (see CastToGfloat.hpp for the rules), as a double holding the exact
/// gfloat value (or an infinity / NaN).
inline double quantise(float x, const GfloatFormat &f, const RoundingSpec &r, std::uint32_t word,
                       double sample = 0.0) {
  if (std::isnan(x))
    return canonicalNaN();
  if (std::isinf(x))
    return x;
  std::uint32_t bits;
  std::memcpy(&bits, &x, 4);
  const bool negative = (bits >> 31) != 0;
  // Tiles keep no float subnormals (the engine's flush-to-zero mode): they are signed zeros.
  if ((bits & 0x7FFFFFFFu) < 0x00800000u)
    return negative ? -0.0 : 0.0;
  const std::uint32_t field = (bits >> 23) & 0xFFu;
  // |x| = sig * 2^exp2, floor(log2 |x|) = top.
  std::uint64_t sig = bits & 0x7FFFFFu;
  int exp2 = -149;
  if (field != 0) {
    sig |= 0x800000u;
    exp2 = static_cast<int>(field) - 150;
  }
  int width = 0;
  for (std::uint64_t s = sig; s != 0; s >>= 1)
    ++width;
  const int top = exp2 + width - 1;
  int ulpExp;
  bool inNormals = false;
  if (f.hasNormals() && top >= f.minNormalExp()) {
    ulpExp = top - static_cast<int>(f.man);
    inNormals = true;
  } else {
    ulpExp = f.denorms ? f.denormUlpExp() : f.minNormalExp();
  }
  const double magnitudeIn = std::fabs(static_cast<double>(x));
  double magnitude = magnitudeIn;
  if (ulpExp > exp2) {
    const unsigned shift = static_cast<unsigned>(std::min(ulpExp - exp2, 62));
    const std::uint64_t k = sig >> shift;
    const std::uint64_t rem = sig & ((std::uint64_t{1} << shift) - 1u);
    // The lower neighbour's code parity: its mantissa's low bit, or with no mantissa bits in the
    // normals its exponent field's.
    const bool lowOdd = (inNormals && f.man == 0) ? ((top + f.bias) & 1) != 0 : (k & 1u) != 0;
    const std::uint64_t q = k + (roundsUp(r, negative, rem, shift, lowOdd, word, sample) ? 1u : 0u);
    magnitude = std::ldexp(static_cast<double>(q), ulpExp);
  }
  const double maxValue = f.maxValue();
  if (magnitude > maxValue || magnitudeIn > maxValue) {
    if (r.nanoo && f.infsAndNans && f.exp != 0)
      return canonicalNaN();
    magnitude = maxValue;
  }
  return negative ? -magnitude : magnitude;
}

/// The code of a gfloat value `v` (a value of the format, an infinity or a NaN), right-aligned.
inline unsigned pack(double v, const GfloatFormat &f) {
  const bool negative = std::signbit(v);
  const unsigned sign = negative ? f.signBit() : 0u;
  const unsigned allOnes = (f.exp == 0) ? 0u : (1u << f.exp) - 1u;
  if (std::isnan(v))
    return f.infsAndNans && f.exp != 0 ? (allOnes << f.man) | (1u << (f.man - 1)) : f.maxCode();
  if (std::isinf(v))
    return sign | (f.infsAndNans && f.exp != 0 ? allOnes << f.man : f.maxCode());
  const double a = std::fabs(v);
  if (a == 0.0)
    return sign;
  if (f.hasNormals() && a >= std::ldexp(1.0, f.minNormalExp())) {
    const int e = std::ilogb(a);
    const double m = std::ldexp(a, -e) - 1.0;
    return sign | (static_cast<unsigned>(e + f.bias) << f.man) |
           static_cast<unsigned>(std::ldexp(m, static_cast<int>(f.man)));
  }
  return sign | static_cast<unsigned>(std::ldexp(a, -f.denormUlpExp()));
}

/// The value of code `c` (bits above the format's width ignored).
inline double unpack(unsigned c, const GfloatFormat &f) {
  const bool negative = (c & f.signBit()) != 0;
  const unsigned m = c & ((1u << f.man) - 1u);
  const unsigned e = f.exp == 0 ? 0u : (c >> f.man) & ((1u << f.exp) - 1u);
  double a;
  if (f.exp != 0 && f.infsAndNans && e == (1u << f.exp) - 1u) {
    if (m != 0)
      return canonicalNaN();
    a = std::numeric_limits<double>::infinity();
  } else if (e == 0) {
    a = f.denorms ? std::ldexp(static_cast<double>(m), f.denormUlpExp()) : 0.0;
  } else {
    a = std::ldexp(1.0 + std::ldexp(static_cast<double>(m), -static_cast<int>(f.man)),
                   static_cast<int>(e) - f.bias);
  }
  return negative ? -a : a;
}

} // namespace tessera::codelets::popfloat
