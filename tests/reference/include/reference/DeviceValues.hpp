// How the device holds values of each Poplar type, for suites that feed references' doubles to
// a graph and read results back: double <-> the bytes of a tensor of `type`, row-major.
//   FLOAT, HALF       rounded to the type (HALF to nearest even, as poplar::half does)
//   INT, SHORT, CHAR, SIGNED_CHAR        signed two's complement, truncated toward zero
//   UNSIGNED_INT, UNSIGNED_SHORT, UNSIGNED_CHAR   the value modulo 2^bits
//   BOOL              one byte, 1 for any non-zero value
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <poplar/Half.hpp>
#include <poplar/Type.hpp>

namespace reference {

/// Bytes per element of `type` on the device.
inline std::size_t deviceBytes(const poplar::Type &type) {
  if (type == poplar::FLOAT || type == poplar::INT || type == poplar::UNSIGNED_INT)
    return 4;
  if (type == poplar::HALF || type == poplar::SHORT || type == poplar::UNSIGNED_SHORT)
    return 2;
  if (type == poplar::BOOL || type == poplar::CHAR || type == poplar::SIGNED_CHAR ||
      type == poplar::UNSIGNED_CHAR)
    return 1;
  throw std::invalid_argument("reference::deviceBytes: no host codec for " + type.toString());
}

/// `values` as the bytes of a `type` tensor.
inline std::vector<unsigned char> toDeviceBytes(const poplar::Type &type,
                                                const std::vector<double> &values) {
  const std::size_t size = deviceBytes(type);
  std::vector<unsigned char> bytes(values.size() * size);
  for (std::size_t i = 0; i < values.size(); ++i) {
    unsigned char *p = bytes.data() + i * size;
    const double v = values[i];
    if (type == poplar::FLOAT) {
      const float f = static_cast<float>(v);
      std::memcpy(p, &f, 4);
    } else if (type == poplar::HALF) {
      const std::uint16_t h = poplar::floatToHalfBits(static_cast<float>(v));
      std::memcpy(p, &h, 2);
    } else if (type == poplar::BOOL) {
      *p = v != 0.0 ? 1 : 0;
    } else {
      // Integers: through int64 so negative values wrap into the unsigned types.
      const auto x = static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
      const std::uint32_t word = static_cast<std::uint32_t>(x);
      if (size == 4)
        std::memcpy(p, &word, 4);
      else if (size == 2) {
        const std::uint16_t half = static_cast<std::uint16_t>(word);
        std::memcpy(p, &half, 2);
      } else
        *p = static_cast<unsigned char>(word);
    }
  }
  return bytes;
}

/// The first `n` elements of a `type` tensor's bytes as doubles.
inline std::vector<double> fromDeviceBytes(const poplar::Type &type,
                                           const std::vector<unsigned char> &bytes, std::size_t n) {
  const std::size_t size = deviceBytes(type);
  std::vector<double> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char *p = bytes.data() + i * size;
    double &v = values[i];
    if (type == poplar::FLOAT) {
      float f;
      std::memcpy(&f, p, 4);
      v = f;
    } else if (type == poplar::HALF) {
      std::uint16_t h;
      std::memcpy(&h, p, 2);
      v = poplar::halfBitsToFloat(h);
    } else if (type == poplar::INT) {
      std::int32_t x;
      std::memcpy(&x, p, 4);
      v = x;
    } else if (type == poplar::UNSIGNED_INT) {
      std::uint32_t x;
      std::memcpy(&x, p, 4);
      v = x;
    } else if (type == poplar::SHORT) {
      std::int16_t x;
      std::memcpy(&x, p, 2);
      v = x;
    } else if (type == poplar::UNSIGNED_SHORT) {
      std::uint16_t x;
      std::memcpy(&x, p, 2);
      v = x;
    } else if (type == poplar::CHAR || type == poplar::SIGNED_CHAR) {
      v = static_cast<signed char>(*p);
    } else if (type == poplar::BOOL) {
      v = *p != 0 ? 1.0 : 0.0;
    } else {
      v = *p;
    }
  }
  return values;
}

} // namespace reference
