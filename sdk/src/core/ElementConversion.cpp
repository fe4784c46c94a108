#include "core/ElementConversion.hpp"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <poplar/Half.hpp>
#include <poplar/Target.hpp>
#include <poplar/TypeConversion.hpp>
#include <poplar/exceptions.hpp>
#include <tessera/QuarterCodec.hpp>

namespace poplar::core {

std::uint16_t floatToHalf(float f) { return floatToHalfBits(f); }
float halfToFloat(std::uint16_t h) { return halfBitsToFloat(h); }

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
  case TypeId::Long:
    return f(long{});
  case TypeId::UnsignedLong:
    return f(static_cast<unsigned long>(0));
  case TypeId::Double:
    return f(double{});
  case TypeId::QuarterMetadata: // the packed byte (<poplar/Quarter.hpp>)
    return f(static_cast<unsigned char>(0));
  case TypeId::Quarter:
    throw type_error("no host conversion for element type " + t.toString() +
                     " without metadata: QUARTER values mean something only under a "
                     "QuarterMetadata (use the conversions that take one)");
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
  if (count == 0) // empty tensors may come with null buffers
    return;
  if (srcType == dstType) {
    std::memcpy(dst, src, count * srcType.size());
    return;
  }
  auto *out = static_cast<unsigned char *>(dst);
  if (dstType == HALF && srcType.id() == TypeId::Double) {
    for (std::size_t i = 0; i < count; ++i) {
      double d;
      std::memcpy(&d, static_cast<const unsigned char *>(src) + sizeof(double) * i, sizeof d);
      std::uint16_t h = doubleToHalfBits(d);
      std::memcpy(out + 2 * i, &h, 2);
    }
    return;
  }
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
      else if (srcType == LONGLONG || srcType == LONG || srcType == INT || srcType == SHORT ||
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

namespace core {
void convertHostAndDevice(const char *function, bool toDevice, Type deviceType, Type hostType,
                          const void *hostValues, void *deviceBytes, std::size_t count) {
  if (!deviceType.isDeviceType())
    throw type_error(std::string(function) + ": " +
                     (deviceType.isValid() ? "'" + deviceType.toString() + "' is not a device type"
                                           : std::string("invalid device type")));
  if (toDevice)
    convertElements(hostType, hostValues, deviceType, deviceBytes, count);
  else
    convertElements(deviceType, deviceBytes, hostType, const_cast<void *>(hostValues), count);
}

void convertHostAndDeviceWithMetadata(const char *function, bool toDevice, Type deviceType,
                                      QuarterMetadata metadata, Type hostType,
                                      const void *hostValues, void *deviceBytes, std::size_t count,
                                      bool nanOnOverflow) {
  if (!deviceType.requiresMetadata())
    throw type_error(std::string(function) + " with a QuarterMetadata: device type '" +
                     deviceType.toString() + "' takes no metadata (only QUARTER does)");
  if (!hostType.isValid() || hostType.requiresMetadata() || hostType == QUARTER_METADATA)
    throw type_error(std::string(function) + ": host type '" + hostType.toString() +
                     "' cannot hold QUARTER values");
  const std::uint8_t md = metadata.getBinary();
  auto *bytes = static_cast<unsigned char *>(deviceBytes);
  if (count == 0)
    return;
  if (toDevice) {
    for (std::size_t i = 0; i < count; ++i)
      bytes[i] = tessera::quarter::encode(load<double>(hostType, hostValues, i), md, nanOnOverflow);
    return;
  }
  // Decode to floats (exact), then to the host type as a float converts.
  std::vector<float> values(count);
  for (std::size_t i = 0; i < count; ++i)
    values[i] = tessera::quarter::decode(bytes[i], md);
  convertElements(FLOAT, values.data(), hostType, const_cast<void *>(hostValues), count);
}

} // namespace core

void copyFloatToDeviceHalf(const Target &, const float *src, void *dst, std::size_t n) {
  core::convertElements(FLOAT, src, HALF, dst, n);
}

void copyDeviceHalfToFloat(const Target &, const void *src, float *dst, std::size_t n) {
  core::convertElements(HALF, src, FLOAT, dst, n);
}

void copyDoubleToDeviceHalf(const Target &, const double *src, void *dst, std::size_t n) {
  core::convertElements(Type(TypeId::Double), src, HALF, dst, n);
}

void copyDeviceHalfToDouble(const Target &, const void *src, double *dst, std::size_t n) {
  core::convertElements(HALF, src, Type(TypeId::Double), dst, n);
}

} // namespace poplar
