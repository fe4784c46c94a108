// Golden reference for popfloat/experimental/CastToGfloat.hpp: the values of a gfloat format's
// codes, and the rounding of a value to the format, in double arithmetic straight from the
// definitions below (no bit manipulation of floats). gfloatRoundByEnumeration rounds by searching
// the sorted list of every value of a small format, so the suites can check gfloatRound itself
// exhaustively (e.g. over every 8-bit format's codes).
//
// A format: M = man mantissa bits, E = exp exponent bits, bias B, denormals D, infinities/NaNs I.
// A code holds sign s (bit E+M), exponent field e (E bits), mantissa field m (M bits):
//   I and e == 2^E - 1:   m == 0: (-1)^s infinity; else NaN
//   e >= 1:               (-1)^s (1 + m / 2^M) 2^(e - B)
//   e == 0:               (-1)^s (m / 2^M) 2^(1 - B) with D; (-1)^s 0 without
// Rounding |x| between neighbouring values y1 <= |x| < y2 (ulp = y2 - y1; without denormals the
// neighbours of a magnitude below the smallest normal are 0 and that normal):
//   RZ: y1   RU/RD: towards +/- infinity   RA: nearest, ties to y2
//   RN: nearest, ties to the neighbour whose code is even (y1 = 0 counts as even)
//   SR: y2 iff word + floor(frac 2^32) >= 2^32, frac = (|x| - y1) / ulp, word 32 random bits
//   SX: n = numSRBits, noise = word >> (32 - n): y2 iff floor(frac 2^n) + noise >= 2^n;
//       UNIFORM density: y2 iff frac + min + (max - min) noise / 2^n >= 1;
//       BERNOULLI: y2 iff frac > 0 and word >= threshold (round down with threshold / 2^32);
//       sampled densities: a noise sample n (gfloatNoiseSample), y2 iff frac + n >= 0.5 for the
//       centred ones (NORMAL, LAPLACE and their truncated forms), frac + n >= 1 for the others
// Then: a result (or |x|) beyond the largest value is a NaN with nanoo (and I, E >= 1), else the
// largest value; signs are kept; NaN in gives NaN, infinities stay infinities.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <vector>

namespace reference {

struct GfloatFormat {
  unsigned man = 10, exp = 5;
  int bias = 15;
  bool denorms = true, infsAndNans = true;
  unsigned bits() const { return 1 + man + exp; }
};

enum class GfloatRound { RZ, RN, RA, RU, RD, SR, SX };
enum class GfloatDensity {
  PLAIN,
  UNIFORM,
  BERNOULLI,
  NORMAL,
  TRUNCATED_NORMAL,
  LOGISTIC,
  TRUNCATED_LOGISTIC,
  LAPLACE,
  TRUNCATED_LAPLACE,
  LOGIT_NORMAL,
  TRUNCATED_LOGIT_NORMAL
};

/// Stochastic parameters (ignored by the deterministic modes). `blocks[a]` are the four random
/// words of attempt a of the element (the sampled densities use them; blocks[0][0] is `word`).
struct GfloatNoise {
  std::uint32_t word = 0;
  unsigned numSRBits = 24;
  GfloatDensity density = GfloatDensity::PLAIN;
  double min = 0.0, max = 1.0, offset = 0.0, scale = 0.0;
  unsigned long long threshold = 0;
  std::vector<std::array<std::uint32_t, 4>> blocks;
};

inline bool gfloatIsSampled(GfloatDensity d) {
  return d != GfloatDensity::PLAIN && d != GfloatDensity::UNIFORM && d != GfloatDensity::BERNOULLI;
}
inline bool gfloatIsCentred(GfloatDensity d) {
  return d == GfloatDensity::NORMAL || d == GfloatDensity::TRUNCATED_NORMAL ||
         d == GfloatDensity::LAPLACE || d == GfloatDensity::TRUNCATED_LAPLACE;
}
inline bool gfloatIsTruncated(GfloatDensity d) {
  return d == GfloatDensity::TRUNCATED_NORMAL || d == GfloatDensity::TRUNCATED_LOGISTIC ||
         d == GfloatDensity::TRUNCATED_LAPLACE || d == GfloatDensity::TRUNCATED_LOGIT_NORMAL;
}

/// u in (0, 1) from a word's top 24 bits: (top + 1/2) / 2^24.
inline double gfloatUnit(std::uint32_t w) { return (static_cast<double>(w >> 8) + 0.5) * 0x1p-24; }

/// One draw from the words of a block b (b[1], b[2]; b[0] is the plain SR word):
///   LOGISTIC:    offset + scale ln(u / (1 - u)),                   u = unit(b[1])
///   LAPLACE:     offset - scale sign(u) ln(1 - 2|u|),              u = unit(b[1]) - 1/2
///   NORMAL:      offset + scale z, z = sqrt(-2 ln unit(b[1])) cos(2 pi unit(b[2]))  (Box-Muller)
///   LOGIT_NORMAL: 1 / (1 + exp(-(offset + scale z)))
inline double gfloatDraw(GfloatDensity d, const std::array<std::uint32_t, 4> &b, double offset,
                         double scale) {
  if (d == GfloatDensity::LOGISTIC || d == GfloatDensity::TRUNCATED_LOGISTIC) {
    const double u = gfloatUnit(b[1]);
    return offset + scale * std::log(u / (1.0 - u));
  }
  if (d == GfloatDensity::LAPLACE || d == GfloatDensity::TRUNCATED_LAPLACE) {
    const double u = gfloatUnit(b[1]) - 0.5;
    return offset - scale * (u < 0 ? -1.0 : 1.0) * std::log(1.0 - 2.0 * std::fabs(u));
  }
  const double z =
      std::sqrt(-2.0 * std::log(gfloatUnit(b[1]))) * std::cos(6.283185307179586 * gfloatUnit(b[2]));
  const double v = offset + scale * z;
  if (d == GfloatDensity::LOGIT_NORMAL || d == GfloatDensity::TRUNCATED_LOGIT_NORMAL)
    return 1.0 / (1.0 + std::exp(-v));
  return v;
}

/// The element's noise sample: attempt 0's draw clipped to [min, max]; for the truncated
/// densities the first draw of attempts 0, 1, … (all of `blocks`) inside [min, max], else
/// min + (max - min) unit(blocks[0][0]).
inline double gfloatNoiseSample(const GfloatNoise &n) {
  if (!gfloatIsTruncated(n.density))
    return std::fmin(std::fmax(gfloatDraw(n.density, n.blocks[0], n.offset, n.scale), n.min),
                     n.max);
  for (const auto &b : n.blocks) {
    const double v = gfloatDraw(n.density, b, n.offset, n.scale);
    if (v >= n.min && v <= n.max)
      return v;
  }
  return n.min + (n.max - n.min) * gfloatUnit(n.blocks[0][0]);
}

inline unsigned gfloatAllOnesExponent(const GfloatFormat &f) { return (1u << f.exp) - 1u; }

/// The value of `code` (see the definition above); NaN codes give quiet NaN.
inline double gfloatCodeValue(unsigned code, const GfloatFormat &f) {
  const bool negative = (code >> (f.man + f.exp)) & 1u;
  const unsigned m = code % (1u << f.man);
  const unsigned e = (code >> f.man) % (1u << f.exp);
  double a;
  if (f.infsAndNans && f.exp >= 1 && e == gfloatAllOnesExponent(f))
    a = m == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  else if (e >= 1)
    a = (1.0 + m / std::ldexp(1.0, static_cast<int>(f.man))) * std::ldexp(1.0, int(e) - f.bias);
  else
    a = f.denorms ? (m / std::ldexp(1.0, static_cast<int>(f.man))) * std::ldexp(1.0, 1 - f.bias)
                  : 0.0;
  return negative ? -a : a;
}

/// Whether the format has codes with e >= 1 that are finite.
inline bool gfloatHasNormals(const GfloatFormat &f) {
  if (f.exp == 0)
    return false;
  return gfloatAllOnesExponent(f) - (f.infsAndNans ? 1u : 0u) >= 1;
}

/// The largest finite value: the largest finite value of any code.
inline double gfloatMaxValue(const GfloatFormat &f) {
  const unsigned topExponent = f.exp == 0 ? 0 : gfloatAllOnesExponent(f) - (f.infsAndNans ? 1 : 0);
  const unsigned code = (topExponent << f.man) | ((1u << f.man) - 1u);
  return gfloatCodeValue(code, f);
}

inline double gfloatSmallestNormal(const GfloatFormat &f) { return std::ldexp(1.0, 1 - f.bias); }

/// Whether the code of the non-negative value `y` of the format is odd (y = 0: even).
inline bool gfloatCodeIsOdd(double y, const GfloatFormat &f) {
  if (y == 0.0)
    return false;
  if (gfloatHasNormals(f) && y >= gfloatSmallestNormal(f)) {
    int e2;
    const double fr = std::frexp(y, &e2); // y = fr 2^e2, fr in [0.5, 1)
    const int e = e2 - 1;                 // y in [2^e, 2^(e+1))
    const double m = (std::ldexp(fr, 1) - 1.0) * std::ldexp(1.0, static_cast<int>(f.man));
    const long long code = (static_cast<long long>(e + f.bias) << f.man) + (long long)m;
    return (code & 1) != 0;
  }
  const double m = y / std::ldexp(1.0, 1 - f.bias - static_cast<int>(f.man));
  return (static_cast<long long>(m) & 1) != 0;
}

/// Whether a magnitude `frac` of the way from y1 to y2 (0 < frac < 1) goes to y2.
inline bool gfloatGoesUp(GfloatRound mode, bool negative, double frac, bool y1Odd,
                         const GfloatNoise &noise) {
  switch (mode) {
  case GfloatRound::RZ:
    return false;
  case GfloatRound::RN:
    return frac > 0.5 || (frac == 0.5 && y1Odd);
  case GfloatRound::RA:
    return frac >= 0.5;
  case GfloatRound::RU:
    return !negative;
  case GfloatRound::RD:
    return negative;
  case GfloatRound::SR: {
    const double fracBits = std::floor(std::ldexp(frac, 32));
    return static_cast<double>(noise.word) + fracBits >= 4294967296.0;
  }
  case GfloatRound::SX: {
    if (noise.density == GfloatDensity::BERNOULLI)
      return noise.word >= noise.threshold;
    if (gfloatIsSampled(noise.density))
      return frac + gfloatNoiseSample(noise) >= (gfloatIsCentred(noise.density) ? 0.5 : 1.0);
    const int n = static_cast<int>(noise.numSRBits);
    const double r = static_cast<double>(noise.word >> (32 - n));
    if (noise.density == GfloatDensity::UNIFORM)
      return frac + (noise.min + (noise.max - noise.min) * std::ldexp(r, -n)) >= 1.0;
    return std::floor(std::ldexp(frac, n)) + r >= std::ldexp(1.0, n);
  }
  }
  return false;
}

/// `x` rounded to format `f` in `mode` (see above), as a double (the exact gfloat value).
inline double gfloatRound(double x, const GfloatFormat &f, GfloatRound mode, bool nanoo,
                          const GfloatNoise &noise = {}) {
  if (std::isnan(x))
    return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(x) || x == 0.0)
    return x;
  const bool negative = x < 0;
  const double a = std::fabs(x);
  // The spacing of the format's values around a.
  double ulp;
  if (gfloatHasNormals(f) && a >= gfloatSmallestNormal(f)) {
    int e2;
    std::frexp(a, &e2);
    ulp = std::ldexp(1.0, e2 - 1 - static_cast<int>(f.man));
  } else {
    ulp =
        f.denorms ? std::ldexp(1.0, 1 - f.bias - static_cast<int>(f.man)) : gfloatSmallestNormal(f);
  }
  const double k = std::floor(a / ulp);
  const double frac = a / ulp - k;
  const double y1 = k * ulp;
  double y = y1;
  if (frac > 0.0 && gfloatGoesUp(mode, negative, frac, gfloatCodeIsOdd(y1, f), noise))
    y = y1 + ulp;
  const double maxValue = gfloatMaxValue(f);
  if (y > maxValue || a > maxValue) {
    if (nanoo && f.infsAndNans && f.exp >= 1)
      return std::numeric_limits<double>::quiet_NaN();
    y = maxValue;
  }
  return negative ? -y : y;
}

/// The sorted non-negative finite values of a format of at most 16 bits, with their codes.
inline std::vector<std::pair<double, unsigned>> gfloatPositiveValues(const GfloatFormat &f) {
  std::map<double, unsigned> byValue; // e == 0 codes all give 0 without denormals: keep code 0
  for (unsigned code = 0; code < (1u << (f.man + f.exp)); ++code) {
    const double v = gfloatCodeValue(code, f);
    if (std::isfinite(v) && !byValue.count(v))
      byValue[v] = code;
  }
  return {byValue.begin(), byValue.end()};
}

/// Deterministic rounding by search: the neighbours of |x| in `values` (gfloatPositiveValues), the
/// choice by `mode` (RN ties to the even code), then the same overflow rule as gfloatRound.
inline double gfloatRoundByEnumeration(double x, const GfloatFormat &f, GfloatRound mode,
                                       bool nanoo,
                                       const std::vector<std::pair<double, unsigned>> &values) {
  if (std::isnan(x))
    return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(x) || x == 0.0)
    return x;
  const bool negative = x < 0;
  const double a = std::fabs(x), maxValue = values.back().first;
  double y;
  auto above = std::upper_bound(values.begin(), values.end(), std::make_pair(a, ~0u));
  if (above == values.end()) {
    y = a == maxValue ? a : std::numeric_limits<double>::infinity();
  } else {
    const auto below = std::prev(above);
    const double y1 = below->first, y2 = above->first;
    if (a == y1) {
      y = y1;
    } else {
      const bool up = mode == GfloatRound::RA ? a - y1 >= y2 - a
                      : mode == GfloatRound::RN
                          ? (a - y1 > y2 - a || (a - y1 == y2 - a && (below->second & 1u)))
                      : mode == GfloatRound::RU ? !negative
                      : mode == GfloatRound::RD ? negative
                                                : false;
      y = up ? y2 : y1;
    }
  }
  if (a > maxValue && mode != GfloatRound::RZ && !(mode == GfloatRound::RD && !negative) &&
      !(mode == GfloatRound::RU && negative))
    y = std::numeric_limits<double>::infinity();
  if (y > maxValue || a > maxValue) {
    if (nanoo && f.infsAndNans && f.exp >= 1)
      return std::numeric_limits<double>::quiet_NaN();
    y = maxValue;
  }
  return negative ? -y : y;
}

/// The code of gfloat value `v` of a format of at most 16 bits (`values` its
/// gfloatPositiveValues): infinities and NaNs as the format has them (without: the largest
/// value's code), -0 with its sign bit.
inline unsigned gfloatEncode(double v, const GfloatFormat &f,
                             const std::vector<std::pair<double, unsigned>> &values) {
  const unsigned sign = std::signbit(v) ? 1u << (f.man + f.exp) : 0u;
  const unsigned maxCode = values.back().second;
  if (std::isnan(v))
    return f.infsAndNans && f.exp >= 1 ? (gfloatAllOnesExponent(f) << f.man) | (1u << (f.man - 1))
                                       : maxCode;
  if (std::isinf(v))
    return sign | (f.infsAndNans && f.exp >= 1 ? gfloatAllOnesExponent(f) << f.man : maxCode);
  const auto it = std::lower_bound(values.begin(), values.end(), std::make_pair(std::fabs(v), 0u));
  return sign | it->second;
}

} // namespace reference
