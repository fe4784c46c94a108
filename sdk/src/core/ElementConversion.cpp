#include "core/ElementConversion.hpp"

#include <cmath>
#include <cstring>

#include <poplar/Target.hpp>
#include <poplar/exceptions.hpp>

namespace poplar::core {

std::uint16_t floatToHalf(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) // Inf or NaN (keep NaN quiet)
    return static_cast<std::uint16_t>(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0));
  if (absx >= 0x477ff000u) // rounds to >= 65520: overflow to Inf
    return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (absx < 0x38800000u) { // below the smallest normal half: subnormal or zero
    if (absx < 0x33000000u)
      return static_cast<std::uint16_t>(sign);
    const std::uint32_t mant = (absx & 0x7fffffu) | 0x800000u;
    // value = mant * 2^(e-150) and the half subnormal unit is 2^-24: shift right by 126 - e.
    const std::uint32_t e = absx >> 23;
    const unsigned s = 126u - e; // 14..24
    std::uint32_t h = mant >> s;
    const std::uint32_t rem = mant & ((1u << s) - 1);
    const std::uint32_t half = 1u << (s - 1);
    if (rem > half || (rem == half && (h & 1u)))
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

float halfToFloat(std::uint16_t h) {
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

namespace {

template <class F> void visitType(Type t, F &&f) {
  switch (t.id()) {
  case TypeId::Float:
    return f(float{});
  case TypeId::Int:
    return f(int{});
  case TypeId::UnsignedInt:
    return f(unsigned{});
  case TypeId::Short:
    return f(short{});
  case TypeId::UnsignedShort:
    return f(static_cast<unsigned short>(0));
  case TypeId::Char:
    return f(char{});
  case TypeId::SignedChar:
    return f(static_cast<signed char>(0));
  case TypeId::UnsignedChar:
    return f(static_cast<unsigned char>(0));
  case TypeId::Bool:
    return f(bool{});
  case TypeId::LongLong:
    return f(static_cast<long long>(0));
  case TypeId::UnsignedLongLong:
    return f(static_cast<unsigned long long>(0));
  case TypeId::Half:
  case TypeId::Invalid:
    break;
  }
  throw type_error("no host conversion for element type " + t.toString());
}

/// Reads element i as a wide host value: doubles for floating types, integers otherwise.
template <class To> To load(Type t, const void *base, std::size_t i) {
  if (t == HALF) {
    std::uint16_t h;
    std::memcpy(&h, static_cast<const unsigned char *>(base) + 2 * i, 2);
    return static_cast<To>(halfToFloat(h));
  }
  To out{};
  visitType(t, [&](auto zero) {
    using T = decltype(zero);
    T v;
    std::memcpy(&v, static_cast<const unsigned char *>(base) + sizeof(T) * i, sizeof(T));
    out = static_cast<To>(v);
  });
  return out;
}

} // namespace

void convertElements(Type srcType, const void *src, Type dstType, void *dst, std::size_t count) {
  if (srcType == dstType) {
    std::memcpy(dst, src, count * srcType.size());
    return;
  }
  auto *out = static_cast<unsigned char *>(dst);
  if (dstType == HALF) {
    for (std::size_t i = 0; i < count; ++i) {
      std::uint16_t h = floatToHalf(load<float>(srcType, src, i));
      std::memcpy(out + 2 * i, &h, 2);
    }
    return;
  }
  visitType(dstType, [&](auto zero) {
    using T = decltype(zero);
    for (std::size_t i = 0; i < count; ++i) {
      T v;
      if (srcType.isFloatingPoint())
        v = static_cast<T>(load<double>(srcType, src, i));
      else if (srcType == LONGLONG || srcType == INT || srcType == SHORT ||
               srcType == SIGNED_CHAR || srcType == CHAR)
        v = static_cast<T>(load<long long>(srcType, src, i));
      else
        v = static_cast<T>(load<unsigned long long>(srcType, src, i));
      std::memcpy(out + sizeof(T) * i, &v, sizeof(T));
    }
  });
}

double elementAsDouble(Type type, const void *base, std::size_t i) {
  return load<double>(type, base, i);
}

} // namespace poplar::core

namespace poplar {

void copyFloatToDeviceHalf(const Target &, const float *src, void *dst, std::size_t n) {
  core::convertElements(FLOAT, src, HALF, dst, n);
}

void copyDeviceHalfToFloat(const Target &, const void *src, float *dst, std::size_t n) {
  core::convertElements(HALF, src, FLOAT, dst, n);
}

} // namespace poplar
