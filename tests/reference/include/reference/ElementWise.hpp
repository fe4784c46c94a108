// Golden references of popops/ElementWise.hpp and the expression ops of popops/ExprOp.hpp:
// one element function per op, named as PopLibs names the enumerator ("ASIN", "SHIFT_LEFT"),
// applied element by element with plain loops.
//
// Floating-point ops are evaluated in double on the inputs as the device holds them; a HALF
// result is then rounded to half once (the device computes HALF in float and rounds on store).
// Integer ops follow C on the 32-bit patterns, with what C leaves undefined written down:
//   DIVIDE        truncates toward zero; x / 0 = 0; INT_MIN / −1 = INT_MIN (wraps)
//   REMAINDER     the sign of the dividend (C %); x % 0 = x; INT_MIN % −1 = 0
//   SHIFT_LEFT    the amount read as unsigned (a negative INT amount is huge); ≥ 32 gives 0
//   SHIFT_RIGHT   logical (zero-filling) on the bit pattern, also for INT; ≥ 32 gives 0
//   SHIFT_RIGHT_SIGN_EXTEND   arithmetic (INT only); ≥ 32 gives 0 or −1 by the sign
//   COUNT_LEADING_ZEROS       32 for 0
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace reference {

/// One float-type unary op on one element (double precision).
inline double elementWiseUnary(const std::string &op, double x) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (op == "ABSOLUTE")
    return std::fabs(x);
  if (op == "ASIN")
    return std::asin(x); // NaN outside [−1, 1]
  if (op == "CBRT")
    return std::cbrt(x); // odd: cbrt(−8) = −2
  if (op == "CEIL")
    return std::ceil(x);
  if (op == "COS")
    return std::cos(x);
  if (op == "ERF")
    return std::erf(x);
  if (op == "EXPONENT")
    return std::exp(x);
  if (op == "EXPONENT_MINUS_ONE")
    return std::expm1(x);
  if (op == "EXPONENT2")
    return std::exp2(x);
  if (op == "FLOOR")
    return std::floor(x);
  if (op == "GELU_ERF") // x·½(1 + erf(x/√2)) = ½·x·erfc(−x/√2)
    return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
  if (op == "INVERSE")
    return 1.0 / x;
  if (op == "LOGARITHM")
    return std::log(x);
  if (op == "LOGARITHM_ONE_PLUS")
    return std::log1p(x);
  if (op == "NEGATE")
    return -x;
  if (op == "NEARBY_INT") // nearest integer, halfway cases to even: 2.5 → 2, 3.5 → 4
    return std::nearbyint(x);
  if (op == "RELU")
    return x > 0 ? x : 0.0;
  if (op == "SIGNUM") // ±0 and NaN are returned as they are
    return x > 0 ? 1.0 : (x < 0 ? -1.0 : x);
  if (op == "SIN")
    return std::sin(x);
  if (op == "TAN")
    return std::tan(x);
  if (op == "TANH")
    return std::tanh(x);
  if (op == "ROUND") // halfway cases away from zero: 2.5 → 3, −2.5 → −3
    return std::round(x);
  if (op == "SQRT")
    return std::sqrt(x);
  if (op == "SQUARE")
    return x * x;
  if (op == "SIGMOID")
    return 1.0 / (1.0 + std::exp(-x));
  if (op == "RSQRT")
    return 1.0 / std::sqrt(x);
  if (op == "TRUNC")
    return std::trunc(x);
  (void)nan;
  throw std::invalid_argument("reference::elementWiseUnary: no float op " + op);
}

/// IS_FINITE, IS_INF, IS_NAN: the predicate of one element.
inline bool elementWisePredicate(const std::string &op, double x) {
  if (op == "IS_FINITE")
    return std::isfinite(x);
  if (op == "IS_INF")
    return std::isinf(x);
  if (op == "IS_NAN")
    return std::isnan(x);
  throw std::invalid_argument("reference::elementWisePredicate: no predicate " + op);
}

/// One float-type binary op on one pair of elements.
inline double elementWiseBinary(const std::string &op, double a, double b) {
  if (op == "ADD")
    return a + b;
  if (op == "SUBTRACT")
    return a - b;
  if (op == "MULTIPLY")
    return a * b;
  if (op == "DIVIDE")
    return a / b;
  if (op == "ATAN2") // the angle of the point (b, a), in (−π, π]
    return std::atan2(a, b);
  if (op == "REMAINDER") // C fmod: a − trunc(a / b)·b, the sign of a
    return std::fmod(a, b);
  if (op == "POWER")
    return std::pow(a, b);
  if (op == "INV_STD_DEV_TO_VARIANCE") // undoes VARIANCE_TO_INV_STD_DEV: 1 / a² − b
    return 1.0 / (a * a) - b;
  if (op == "VARIANCE_TO_INV_STD_DEV") // 1 / √(a + b)
    return 1.0 / std::sqrt(a + b);
  if (op == "MAXIMUM")
    return std::fmax(a, b);
  if (op == "MINIMUM")
    return std::fmin(a, b);
  throw std::invalid_argument("reference::elementWiseBinary: no float op " + op);
}

/// One integer op on 32-bit operands (`isSigned`: INT, else UNSIGNED_INT); `b` is ignored by
/// the unary ones (BITWISE_NOT, POPCOUNT, COUNT_LEADING_ZEROS). The result is the 32-bit pattern
/// read back as the operand type.
inline std::int64_t elementWiseInteger(const std::string &op, std::int64_t a, std::int64_t b,
                                       bool isSigned) {
  const std::uint32_t ua = static_cast<std::uint32_t>(a), ub = static_cast<std::uint32_t>(b);
  auto back = [&](std::uint32_t bits) -> std::int64_t {
    return isSigned ? static_cast<std::int64_t>(static_cast<std::int32_t>(bits))
                    : static_cast<std::int64_t>(bits);
  };
  if (op == "ADD") // wraps modulo 2^32
    return back(ua + ub);
  if (op == "SUBTRACT")
    return back(ua - ub);
  if (op == "MULTIPLY")
    return back(ua * ub);
  if (op == "BITWISE_AND")
    return back(ua & ub);
  if (op == "BITWISE_OR")
    return back(ua | ub);
  if (op == "BITWISE_XOR")
    return back(ua ^ ub);
  if (op == "BITWISE_XNOR")
    return back(~(ua ^ ub));
  if (op == "BITWISE_NOT")
    return back(~ua);
  if (op == "POPCOUNT") {
    std::uint32_t n = 0;
    for (std::uint32_t v = ua; v; v >>= 1)
      n += v & 1u;
    return back(n);
  }
  if (op == "COUNT_LEADING_ZEROS") {
    std::uint32_t n = 0;
    for (std::uint32_t bit = 0x80000000u; bit && !(ua & bit); bit >>= 1)
      ++n;
    return back(n);
  }
  if (op == "SHIFT_LEFT") {
    std::uint32_t v = ua;
    for (std::uint32_t i = 0; i < ub && v; ++i) // one bit at a time: ≥ 32 leaves 0
      v <<= 1;
    return back(v);
  }
  if (op == "SHIFT_RIGHT") {
    std::uint32_t v = ua;
    for (std::uint32_t i = 0; i < ub && v; ++i)
      v >>= 1;
    return back(v);
  }
  if (op == "SHIFT_RIGHT_SIGN_EXTEND") { // floor(a / 2^b), INT
    std::int64_t v = static_cast<std::int32_t>(ua);
    for (std::uint32_t i = 0; i < ub && i < 40; ++i)
      v = v >= 0 ? v / 2 : -((-v + 1) / 2);
    return v;
  }
  if (op == "DIVIDE" || op == "REMAINDER") {
    const std::int64_t x = back(ua), y = back(ub);
    if (y == 0)
      return op == "DIVIDE" ? 0 : x;
    std::int64_t q = x / y; // C++ (since C++11): truncation toward zero
    const std::int64_t r = x - q * y;
    return op == "DIVIDE" ? back(static_cast<std::uint32_t>(q))
                          : back(static_cast<std::uint32_t>(r));
  }
  throw std::invalid_argument("reference::elementWiseInteger: no integer op " + op);
}

/// One integer op on SHORT (`isSigned`) or UNSIGNED_SHORT operands: the 32-bit op on the
/// values, except that SHIFT_RIGHT shifts the 16-bit pattern (zero-filling from bit 15); the
/// result wraps to 16 bits as 16-bit arithmetic does.
inline std::int64_t elementWiseShortInteger(const std::string &op, std::int64_t a, std::int64_t b,
                                            bool isSigned) {
  const std::int64_t x = op == "SHIFT_RIGHT" ? (a & 0xffff) : a;
  const std::int64_t r = elementWiseInteger(op, x, b, true);
  const std::uint16_t bits = static_cast<std::uint16_t>(static_cast<std::uint64_t>(r) & 0xffffu);
  return isSigned ? static_cast<std::int64_t>(static_cast<std::int16_t>(bits))
                  : static_cast<std::int64_t>(bits);
}

/// The element function applied to every element (shapes already equal).
inline std::vector<double> elementWiseUnary(const std::string &op, const std::vector<double> &x) {
  std::vector<double> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    y[i] = elementWiseUnary(op, x[i]);
  return y;
}
inline std::vector<double> elementWiseBinary(const std::string &op, const std::vector<double> &a,
                                             const std::vector<double> &b) {
  std::vector<double> y(a.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    y[i] = elementWiseBinary(op, a[i], b[i]);
  return y;
}

} // namespace reference
