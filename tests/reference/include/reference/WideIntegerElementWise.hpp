// Golden reference of popops::map's binary operations on 64-bit integers (LONGLONG,
// UNSIGNED_LONGLONG), one element at a time, the operation named as PopLibs names its
// enumerator. The exact result is formed in 128-bit arithmetic and then reduced modulo 2^64
// (what C leaves undefined for signed overflow, written down):
//   ADD, SUBTRACT, MULTIPLY   the exact result modulo 2^64
//   DIVIDE        truncates toward zero; x / 0 = 0; LLONG_MIN / −1 = LLONG_MIN (wraps)
//   REMAINDER     the sign of the dividend; x % 0 = x; LLONG_MIN % −1 = 0
//   SHIFT_LEFT, SHIFT_RIGHT   on the bit pattern, the amount read as unsigned; ≥ 64 gives 0
//   SHIFT_RIGHT_SIGN_EXTEND   arithmetic (long long only); ≥ 64 gives 0 or −1 by the sign
//   comparisons   1 or 0
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace reference {

/// `op` on a and b, both of the signed (`isSigned`) or unsigned 64-bit type, given as their bit
/// patterns; returns the result's bit pattern (0 or 1 for a comparison).
inline std::uint64_t wideIntegerBinary(const std::string &op, std::uint64_t a, std::uint64_t b,
                                       bool isSigned) {
  using I128 = __int128;
  const I128 va = isSigned ? I128(static_cast<std::int64_t>(a)) : I128(a);
  const I128 vb = isSigned ? I128(static_cast<std::int64_t>(b)) : I128(b);
  const auto wrap = [](I128 v) {
    return static_cast<std::uint64_t>(static_cast<unsigned __int128>(v));
  };
  if (op == "ADD")
    return wrap(va + vb);
  if (op == "SUBTRACT")
    return wrap(va - vb);
  if (op == "MULTIPLY") // low 64 bits of the product: the same for both signednesses
    return static_cast<std::uint64_t>(static_cast<unsigned __int128>(a) * b);
  if (op == "DIVIDE")
    return vb == 0 ? 0 : wrap(va / vb);
  if (op == "REMAINDER")
    return vb == 0 ? a : wrap(va % vb);
  if (op == "MAXIMUM")
    return va > vb ? a : b;
  if (op == "MINIMUM")
    return va < vb ? a : b;
  if (op == "BITWISE_AND")
    return a & b;
  if (op == "BITWISE_OR")
    return a | b;
  if (op == "BITWISE_XOR")
    return a ^ b;
  if (op == "BITWISE_XNOR")
    return ~(a ^ b);
  if (op == "SHIFT_LEFT")
    return b >= 64 ? 0 : a << b;
  if (op == "SHIFT_RIGHT")
    return b >= 64 ? 0 : a >> b;
  if (op == "SHIFT_RIGHT_SIGN_EXTEND") {
    const bool negative = va < 0;
    if (b >= 64)
      return negative ? ~std::uint64_t(0) : 0;
    // Floor division by 2^b is the arithmetic shift.
    I128 q = va / (I128(1) << b);
    if (negative && q * (I128(1) << b) != va)
      q -= 1;
    return wrap(q);
  }
  if (op == "EQUAL")
    return va == vb;
  if (op == "NOT_EQUAL")
    return va != vb;
  if (op == "LESS_THAN")
    return va < vb;
  if (op == "LESS_THAN_EQUAL")
    return va <= vb;
  if (op == "GREATER_THAN")
    return va > vb;
  if (op == "GREATER_THAN_EQUAL")
    return va >= vb;
  throw std::invalid_argument("wideIntegerBinary: unknown op " + op);
}

} // namespace reference
