// Element functions of the map interpreter's ops that have no SIMD form: one definition, used
// by the kernel table and by the scalar reference table alike, so the semantics written here
// (integer shifts past the width, remainder by zero, …) are the ones every vertex runs.
// Transcendental ones are evaluated in double and rounded once to float.
#pragma once

#include <cmath>
#include <cstdint>

namespace tessera::codelets::popops::mapexpr::scalar {

inline float asinF(float x) { return static_cast<float>(std::asin(double(x))); }
inline float tanF(float x) { return static_cast<float>(std::tan(double(x))); }
inline float cbrtF(float x) { return static_cast<float>(std::cbrt(double(x))); }
inline float exp2F(float x) { return static_cast<float>(std::exp2(double(x))); }
/// Halfway cases to even (the default rounding mode; nothing in Tessera changes it).
inline float nearbyIntF(float x) { return std::nearbyint(x); }
/// x·½(1 + erf(x/√2)) written as ½·x·erfc(−x/√2), which keeps its accuracy for very negative x.
inline float geluErfF(float x) {
  const double xd = x;
  return static_cast<float>(0.5 * xd * std::erfc(-xd * 0.70710678118654752440));
}
inline std::uint32_t isFiniteF(float x) { return std::isfinite(x) ? 1u : 0u; }
inline std::uint32_t isInfF(float x) { return std::isinf(x) ? 1u : 0u; }
inline std::uint32_t isNanF(float x) { return std::isnan(x) ? 1u : 0u; }

inline float atan2F(float y, float x) {
  return static_cast<float>(std::atan2(double(y), double(x)));
}
/// C's fmod: the result has the sign of the dividend (exact in float).
inline float remF(float a, float b) { return std::fmod(a, b); }
inline float invStdDevToVarianceF(float a, float eps) {
  const double ad = a;
  return static_cast<float>(1.0 / (ad * ad) - double(eps));
}
inline float varianceToInvStdDevF(float a, float eps) {
  return static_cast<float>(1.0 / std::sqrt(double(a) + double(eps)));
}

/// C semantics (truncation toward zero, the sign of the dividend); by zero gives the dividend (so
/// a == (a / b) * b + a % b still holds with Tessera's a / 0 == 0); INT_MIN % −1 is 0.
inline std::int32_t remI(std::int32_t a, std::int32_t b) {
  if (b == 0)
    return a;
  if (b == -1)
    return 0;
  return a % b;
}
inline std::uint32_t remU(std::uint32_t a, std::uint32_t b) { return b == 0 ? a : a % b; }
/// The shift amount is read as unsigned (a negative INT amount is huge); 32 or more shifts every
/// bit out.
inline std::uint32_t shl(std::uint32_t a, std::uint32_t b) { return b >= 32 ? 0u : a << b; }
inline std::uint32_t shr(std::uint32_t a, std::uint32_t b) { return b >= 32 ? 0u : a >> b; }
inline std::int32_t shrSignExtend(std::int32_t a, std::int32_t b) {
  const std::uint32_t n = static_cast<std::uint32_t>(b);
  return n >= 32 ? (a < 0 ? -1 : 0) : (a >> n);
}
inline std::uint32_t popcount(std::uint32_t x) {
  return static_cast<std::uint32_t>(__builtin_popcount(x));
}
inline std::uint32_t countLeadingZeros(std::uint32_t x) {
  return x == 0 ? 32u : static_cast<std::uint32_t>(__builtin_clz(x));
}

} // namespace tessera::codelets::popops::mapexpr::scalar
