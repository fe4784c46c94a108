// IEEE-754 binary16: the storage of HALF tensors, and the `half` type codelets compute with.
#pragma once

#include <cfenv>
#include <cstdint>
#include <cstring>

#include <poplar/Type.hpp>

namespace poplar {

/// Rounds `f` to the nearest half (ties to even); overflow gives infinity, NaN stays NaN. A
/// finite float that overflows raises FE_OVERFLOW, as a hardware conversion does (so a trap
/// set with setFloatingPointBehaviour's oflo sees overflows in HALF arithmetic).
inline std::uint16_t floatToHalfBits(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) // Inf or NaN (keep NaN quiet)
    return static_cast<std::uint16_t>(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0));
  if (absx >= 0x477ff000u) { // rounds to >= 65520: overflow to Inf
    std::feraiseexcept(FE_OVERFLOW | FE_INEXACT);
    return static_cast<std::uint16_t>(sign | 0x7c00u);
  }
  if (absx < 0x38800000u) { // below the smallest normal half: subnormal or zero
    if (absx < 0x33000000u)
      return static_cast<std::uint16_t>(sign);
    const std::uint32_t mant = (absx & 0x7fffffu) | 0x800000u;
    // value = mant * 2^(e-150) and the half subnormal unit is 2^-24: shift right by 126 - e.
    const std::uint32_t e = absx >> 23;
    const unsigned s = 126u - e; // 14..24
    std::uint32_t h = mant >> s;
    const std::uint32_t rem = mant & ((1u << s) - 1);
    const std::uint32_t halfway = 1u << (s - 1);
    if (rem > halfway || (rem == halfway && (h & 1u)))
      ++h;
    return static_cast<std::uint16_t>(sign | h);
  }
  // Normal: rebias exponent and round mantissa to 10 bits, nearest even.
  std::uint32_t h = ((absx >> 13) - (112u << 10));
  const std::uint32_t rem = absx & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
    ++h;
  return static_cast<std::uint16_t>(sign | h);
}

/// Rounds `d` to the nearest half (ties to even) in one rounding. Going through float first
/// could round twice; rounding to float towards zero and marking inexactness in the lowest bit
/// ("round to odd") keeps enough information for the second rounding to be the correct one,
/// because float carries 13 more fraction bits than half.
inline std::uint16_t doubleToHalfBits(double d) {
  float f = static_cast<float>(d);
  if (f != f) // NaN
    return floatToHalfBits(f);
  const double back = static_cast<double>(f);
  if (back != d) {
    std::uint32_t x;
    std::memcpy(&x, &f, 4);
    // |f| rounded away from zero: step one unit back towards zero (also turns an overflow to
    // infinity into the largest float), then mark the result inexact.
    if ((back > 0 && back > d) || (back < 0 && back < d))
      --x;
    x |= 1u;
    std::memcpy(&f, &x, 4);
  }
  return floatToHalfBits(f);
}

/// The float equal to half `h` (exact).
inline float halfBitsToFloat(std::uint16_t h) {
  const std::uint32_t sign = (h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t mant = h & 0x3ffu;
  std::uint32_t x;
  if (exp == 0x1f) {
    x = sign | 0x7f800000u | (mant << 13);
  } else if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else { // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      x = sign | ((112u - static_cast<std::uint32_t>(e)) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else {
    x = sign | ((exp + 112u) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

/// A half-precision value as stored on the device (2 bytes). Arithmetic happens in float:
/// operands convert to float and results round back when assigned, as the IPU Model does.
struct half {
  std::uint16_t bits = 0;
  half() = default;
  half(float f) : bits(floatToHalfBits(f)) {}
  operator float() const { return halfBitsToFloat(bits); }
  static half fromBits(std::uint16_t b) {
    half h;
    h.bits = b;
    return h;
  }
};
static_assert(sizeof(half) == 2, "half is two bytes");

template <> struct equivalent_device_type<half> { static constexpr Type value = HALF; };

} // namespace poplar
