// The interpreter's kernels, one per opcode, written once with Highway for every enabled
// target; kernelTable() hands out the best target's table, taken once at registration.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "popops/kernels/MapExprKernels.cpp"
#include <hwy/foreach_target.h> // IWYU pragma: keep
#include <hwy/highway.h>

#include <hwy/contrib/math/math-inl.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "common/Dispatch.hpp"
#include "popops/MapExprBytecode.hpp"
#include "popops/MapExprScalarOps.hpp"

HWY_BEFORE_NAMESPACE();
namespace tessera::codelets::popops::mapexpr {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// ---- drivers: full vectors, then the tail one lane at a time with the same op code ---------

template <class T, class F> HWY_INLINE void drive(std::size_t n, const F &f) {
  const hn::ScalableTag<T> d;
  const std::size_t lanes = hn::Lanes(d);
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes)
    f(d, i);
  const hn::CappedTag<T, 1> d1;
  for (; i < n; ++i)
    f(d1, i);
}

template <class T, class Op>
void unary(void *out, const void *a, const void *, const void *, std::size_t n) {
  const T *pa = static_cast<const T *>(a);
  T *po = static_cast<T *>(out);
  drive<T>(
      n, [&](auto d, std::size_t i) { hn::StoreU(Op::apply(d, hn::LoadU(d, pa + i)), d, po + i); });
}

template <class T, class Op>
void binary(void *out, const void *a, const void *b, const void *, std::size_t n) {
  const T *pa = static_cast<const T *>(a);
  const T *pb = static_cast<const T *>(b);
  T *po = static_cast<T *>(out);
  drive<T>(n, [&](auto d, std::size_t i) {
    hn::StoreU(Op::apply(d, hn::LoadU(d, pa + i), hn::LoadU(d, pb + i)), d, po + i);
  });
}

template <class T, class Op>
void ternary(void *out, const void *a, const void *b, const void *c, std::size_t n) {
  const T *pa = static_cast<const T *>(a);
  const T *pb = static_cast<const T *>(b);
  const T *pc = static_cast<const T *>(c);
  T *po = static_cast<T *>(out);
  drive<T>(n, [&](auto d, std::size_t i) {
    hn::StoreU(Op::apply(d, hn::LoadU(d, pa + i), hn::LoadU(d, pb + i), hn::LoadU(d, pc + i)), d,
               po + i);
  });
}

/// A comparison: bool (uint32 0/1) out[i] = a[i] OP b[i].
template <class T, class Op>
void compare(void *out, const void *a, const void *b, const void *, std::size_t n) {
  const T *pa = static_cast<const T *>(a);
  const T *pb = static_cast<const T *>(b);
  std::uint32_t *po = static_cast<std::uint32_t *>(out);
  drive<T>(n, [&](auto d, std::size_t i) {
    const hn::RebindToUnsigned<decltype(d)> du;
    const auto m = Op::apply(d, hn::LoadU(d, pa + i), hn::LoadU(d, pb + i));
    hn::StoreU(hn::IfThenElseZero(hn::RebindMask(du, m), hn::Set(du, 1u)), du, po + i);
  });
}

/// An op without a SIMD form: one scalar function per element.
template <class T, T (*F)(T, T)>
void scalarBinary(void *out, const void *a, const void *b, const void *, std::size_t n) {
  const T *pa = static_cast<const T *>(a);
  const T *pb = static_cast<const T *>(b);
  T *po = static_cast<T *>(out);
  for (std::size_t i = 0; i < n; ++i)
    po[i] = F(pa[i], pb[i]);
}

template <class In, class Out, Out (*F)(In)>
void scalarUnary(void *out, const void *a, const void *, const void *, std::size_t n) {
  const In *pa = static_cast<const In *>(a);
  Out *po = static_cast<Out *>(out);
  for (std::size_t i = 0; i < n; ++i)
    po[i] = F(pa[i]);
}

// ---- element functions ----------------------------------------------------------------

#define TESSERA_UNARY_OP(NAME, EXPR)                                                               \
  struct NAME {                                                                                    \
    template <class D, class V> static HWY_INLINE V apply(D d, V x) {                              \
      (void)d;                                                                                     \
      return EXPR;                                                                                 \
    }                                                                                              \
  };
#define TESSERA_BINARY_OP(NAME, EXPR)                                                              \
  struct NAME {                                                                                    \
    template <class D, class V> static HWY_INLINE auto apply(D d, V x, V y) {                      \
      (void)d;                                                                                     \
      return EXPR;                                                                                 \
    }                                                                                              \
  };

TESSERA_UNARY_OP(Identity, x)
TESSERA_UNARY_OP(Negate, hn::Neg(x))
TESSERA_UNARY_OP(Absolute, hn::Abs(x))
TESSERA_UNARY_OP(Exponent, hn::Exp(d, x))
TESSERA_UNARY_OP(ExponentMinusOne, hn::Expm1(d, x))
TESSERA_UNARY_OP(Logarithm, hn::Log(d, x))
TESSERA_UNARY_OP(LogarithmOnePlus, hn::Log1p(d, x))
TESSERA_UNARY_OP(SquareRoot, hn::Sqrt(x))
TESSERA_UNARY_OP(InverseSquareRoot, hn::Div(hn::Set(d, 1.0f), hn::Sqrt(x)))
TESSERA_UNARY_OP(Square, hn::Mul(x, x))
TESSERA_UNARY_OP(Inverse, hn::Div(hn::Set(d, 1.0f), x))
TESSERA_UNARY_OP(HyperbolicTangent, hn::Tanh(d, x))
TESSERA_UNARY_OP(Sigmoid,
                 hn::Div(hn::Set(d, 1.0f), hn::Add(hn::Set(d, 1.0f), hn::Exp(d, hn::Neg(x)))))
TESSERA_UNARY_OP(SignumFloat,
                 hn::IfThenElse(hn::Gt(x, hn::Zero(d)), hn::Set(d, 1.0f),
                                hn::IfThenElse(hn::Lt(x, hn::Zero(d)), hn::Set(d, -1.0f), x)))
TESSERA_UNARY_OP(FloorOp, hn::Floor(x))
TESSERA_UNARY_OP(CeilOp, hn::Ceil(x))
TESSERA_UNARY_OP(TruncOp, hn::Trunc(x))
TESSERA_UNARY_OP(Cosine, hn::Cos(d, x))
TESSERA_UNARY_OP(Sine, hn::Sin(d, x))
TESSERA_UNARY_OP(Relu, hn::Max(x, hn::Zero(d)))
TESSERA_UNARY_OP(SignumInt,
                 hn::IfThenElse(hn::Gt(x, hn::Zero(d)), hn::Set(d, 1),
                                hn::IfThenElseZero(hn::Lt(x, hn::Zero(d)), hn::Set(d, -1))))
TESSERA_UNARY_OP(SignumUnsigned, hn::IfThenElseZero(hn::Ne(x, hn::Zero(d)), hn::Set(d, 1u)))
TESSERA_UNARY_OP(NotBool, hn::Xor(x, hn::Set(d, 1u)))

/// Rounds half away from zero (std::round), unlike hn::Round (half to even).
struct RoundOp {
  template <class D, class V> static HWY_INLINE V apply(D d, V x) {
    const V t = hn::Trunc(x);
    const auto up = hn::Ge(hn::Abs(hn::Sub(x, t)), hn::Set(d, 0.5f));
    return hn::IfThenElse(up, hn::Add(t, hn::CopySign(hn::Set(d, 1.0f), x)), t);
  }
};

/// erf: a Taylor series below 0.5, else 1 - erfc with Numerical Recipes' Chebyshev fit
/// (fractional error < 1.2e-7); absolute error about 1e-7 in float.
struct ErrorFunction {
  template <class D, class V> static HWY_INLINE V apply(D d, V x) {
    const V z = hn::Abs(x);
    const V z2 = hn::Mul(x, x);
    V s = hn::Set(d, 0.00012055332981789664f);
    s = hn::MulAdd(s, z2, hn::Set(d, -0.0008548325508299338f));
    s = hn::MulAdd(s, z2, hn::Set(d, 0.005223977625442188f));
    s = hn::MulAdd(s, z2, hn::Set(d, -0.026866170645131252f));
    s = hn::MulAdd(s, z2, hn::Set(d, 0.11283791670955126f));
    s = hn::MulAdd(s, z2, hn::Set(d, -0.37612638903183754f));
    s = hn::MulAdd(s, z2, hn::Set(d, 1.1283791670955126f));
    const V series = hn::Mul(s, x);

    const V t = hn::Div(hn::Set(d, 1.0f), hn::MulAdd(hn::Set(d, 0.5f), z, hn::Set(d, 1.0f)));
    V p = hn::Set(d, 0.17087277f);
    p = hn::MulAdd(p, t, hn::Set(d, -0.82215223f));
    p = hn::MulAdd(p, t, hn::Set(d, 1.48851587f));
    p = hn::MulAdd(p, t, hn::Set(d, -1.13520398f));
    p = hn::MulAdd(p, t, hn::Set(d, 0.27886807f));
    p = hn::MulAdd(p, t, hn::Set(d, -0.18628806f));
    p = hn::MulAdd(p, t, hn::Set(d, 0.09678418f));
    p = hn::MulAdd(p, t, hn::Set(d, 0.37409196f));
    p = hn::MulAdd(p, t, hn::Set(d, 1.00002368f));
    p = hn::MulAdd(p, t, hn::Set(d, -1.26551223f));
    const V erfc = hn::Mul(t, hn::Exp(d, hn::Sub(p, z2)));
    const V tail = hn::CopySign(hn::Sub(hn::Set(d, 1.0f), erfc), x);
    return hn::IfThenElse(hn::Lt(z, hn::Set(d, 0.5f)), series, tail);
  }
};

/// The tanh-approximated GELU, x·½(1 + tanh u) with u = √(2/π)·x·(1 + 0.044715·x²), computed
/// as x·σ(2u) = x / (1 + e^(−2u)) — the same function with one exponential instead of tanh's
/// exponential and division. e^(−2u) is capped below float's overflow, where x / (1 + e) is
/// (−)0 either way.
template <class D, class V> HWY_INLINE V geluExpMinus2u(D d, V x, V x2) {
  constexpr float kMinus2Alpha = -2.0f * kGeluAlpha;
  constexpr float kMinus2AlphaBeta = -2.0f * kGeluAlpha * kGeluBeta;
  const V arg = hn::Mul(x, hn::MulAdd(hn::Set(d, kMinus2AlphaBeta), x2, hn::Set(d, kMinus2Alpha)));
  return hn::Exp(d, hn::Min(arg, hn::Set(d, 88.0f)));
}

struct GeluTanh {
  template <class D, class V> static HWY_INLINE V apply(D d, V x) {
    const V e = geluExpMinus2u(d, x, hn::Mul(x, x));
    return hn::Div(x, hn::Add(hn::Set(d, 1.0f), e));
  }
};

/// dy·GELU'(x) = dy·(s + 2x·s(1 − s)·u') with s = σ(2u) and u' = √(2/π)·(1 + 3·0.044715·x²);
/// 1 − s is e·s, so no cancellation where s is near 1.
struct GeluTanhGrad {
  template <class D, class V> static HWY_INLINE V apply(D d, V x, V dy) {
    constexpr float k3AlphaBeta = 3.0f * kGeluAlpha * kGeluBeta;
    const V x2 = hn::Mul(x, x);
    const V e = geluExpMinus2u(d, x, x2);
    const V s = hn::Div(hn::Set(d, 1.0f), hn::Add(hn::Set(d, 1.0f), e));
    const V du = hn::MulAdd(hn::Set(d, k3AlphaBeta), x2, hn::Set(d, kGeluAlpha));
    const V twoX = hn::Add(x, x);
    const V slope = hn::MulAdd(hn::Mul(hn::Mul(twoX, s), hn::Mul(e, s)), du, s);
    return hn::Mul(dy, slope);
  }
};

TESSERA_BINARY_OP(AddOp, hn::Add(x, y))
TESSERA_BINARY_OP(SubOp, hn::Sub(x, y))
TESSERA_BINARY_OP(MulOp, hn::Mul(x, y))
TESSERA_BINARY_OP(DivOp, hn::Div(x, y))
TESSERA_BINARY_OP(MaxOp, hn::Max(x, y))
TESSERA_BINARY_OP(MinOp, hn::Min(x, y))
TESSERA_BINARY_OP(AndOp, hn::And(x, y))
TESSERA_BINARY_OP(OrOp, hn::Or(x, y))
TESSERA_BINARY_OP(EqOp, hn::Eq(x, y))
// Not Ne: x86 compares "not equal" ordered, false for NaN, where C++ (and the reference) says
// true.
TESSERA_BINARY_OP(NeOp, hn::Not(hn::Eq(x, y)))
TESSERA_BINARY_OP(LtOp, hn::Lt(x, y))
TESSERA_BINARY_OP(LeOp, hn::Le(x, y))
TESSERA_BINARY_OP(GtOp, hn::Gt(x, y))
TESSERA_BINARY_OP(GeOp, hn::Ge(x, y))
// Highway 1.0.3 has no integer <= and >=: the negated strict compares (no NaN in integers).
TESSERA_BINARY_OP(IntLeOp, hn::Not(hn::Gt(x, y)))
TESSERA_BINARY_OP(IntGeOp, hn::Not(hn::Lt(x, y)))

/// Unsigned order through the signed compare: flip the sign bits first.
template <class Cmp> struct UnsignedCompare {
  template <class D, class V> static HWY_INLINE auto apply(D d, V x, V y) {
    const hn::RebindToSigned<D> di;
    const auto bias = hn::Set(d, 0x80000000u);
    const auto m =
        Cmp::apply(di, hn::BitCast(di, hn::Xor(x, bias)), hn::BitCast(di, hn::Xor(y, bias)));
    return hn::RebindMask(d, m);
  }
};

struct ClampOp {
  template <class D, class V> static HWY_INLINE V apply(D, V x, V lo, V hi) {
    return hn::Min(hn::Max(x, lo), hi);
  }
};

/// c ? a : b on 32-bit lanes (c is a bool register).
struct SelectOp {
  template <class D, class V> static HWY_INLINE V apply(D d, V a, V b, V c) {
    return hn::IfThenElse(hn::Ne(c, hn::Zero(d)), a, b);
  }
};

TESSERA_BINARY_OP(XorOp, hn::Xor(x, y))
TESSERA_BINARY_OP(XnorOp, hn::Not(hn::Xor(x, y)))
TESSERA_UNARY_OP(BitNot, hn::Not(x))

// ---- element functions without a SIMD form ----------------------------------------------

float powScalar(float a, float b) { return std::pow(a, b); }
// Integer division by zero gives 0, and INT_MIN / -1 wraps, instead of trapping.
std::int32_t divInt(std::int32_t a, std::int32_t b) {
  if (b == 0)
    return 0;
  if (b == -1)
    return static_cast<std::int32_t>(0u - static_cast<std::uint32_t>(a));
  return a / b;
}
std::uint32_t divUnsigned(std::uint32_t a, std::uint32_t b) { return b == 0 ? 0 : a / b; }
std::uint32_t floatToUnsigned(float x) {
  if (!(x > 0.0f))
    return 0;
  if (x >= 4294967296.0f)
    return std::numeric_limits<std::uint32_t>::max();
  return static_cast<std::uint32_t>(x);
}
float unsignedToFloat(std::uint32_t x) { return static_cast<float>(x); }

// ---- conversions ------------------------------------------------------------------------

/// Half bits (uint32 lanes) to float bits, exactly.
template <class DU> HWY_INLINE hn::Vec<DU> halfToFloatBits(DU du, hn::Vec<DU> h) {
  const hn::RebindToFloat<DU> df;
  const auto shiftedExp = hn::Set(du, 0x7c00u << 13);
  auto o = hn::ShiftLeft<13>(hn::And(h, hn::Set(du, 0x7fffu)));
  const auto exp = hn::And(o, shiftedExp);
  o = hn::Add(o, hn::Set(du, (127u - 15u) << 23));
  const auto infNan = hn::Eq(exp, shiftedExp);
  const auto small = hn::Eq(exp, hn::Zero(du));
  o = hn::IfThenElse(infNan, hn::Add(o, hn::Set(du, (128u - 16u) << 23)), o);
  const auto renorm = hn::BitCast(du, hn::Sub(hn::BitCast(df, hn::Add(o, hn::Set(du, 1u << 23))),
                                              hn::BitCast(df, hn::Set(du, 113u << 23))));
  o = hn::IfThenElse(small, renorm, o);
  return hn::Or(o, hn::ShiftLeft<16>(hn::And(h, hn::Set(du, 0x8000u))));
}

/// Float bits to half bits (in uint32 lanes), rounding to nearest even exactly as
/// poplar::floatToHalfBits does.
template <class DU> HWY_INLINE hn::Vec<DU> floatToHalfBits(DU du, hn::Vec<DU> x) {
  const hn::RebindToFloat<DU> df;
  const hn::RebindToSigned<DU> di;
  const auto sign = hn::And(x, hn::Set(du, 0x80000000u));
  const auto a = hn::Xor(x, sign);
  const auto ai = hn::BitCast(di, a);
  // Inf or NaN, or too large: 0x7c00 (Inf) or 0x7e00 (quiet NaN).
  const auto special = hn::IfThenElse(hn::RebindMask(du, hn::Gt(ai, hn::Set(di, 0x7f800000))),
                                      hn::Set(du, 0x7e00u), hn::Set(du, 0x7c00u));
  // Subnormal or zero: let float addition do the rounding.
  const auto magic = hn::Set(du, ((127u - 15u) + (23u - 10u) + 1u) << 23);
  const auto sub =
      hn::Sub(hn::BitCast(du, hn::Add(hn::BitCast(df, a), hn::BitCast(df, magic))), magic);
  // Normal: rebias, round to nearest even on the 13 dropped bits.
  const auto odd = hn::And(hn::ShiftRight<13>(a), hn::Set(du, 1u));
  const auto norm =
      hn::ShiftRight<13>(hn::Add(hn::Add(a, hn::Set(du, ((15u - 127u) << 23) + 0xfffu)), odd));
  auto o = hn::IfThenElse(hn::RebindMask(du, hn::Lt(ai, hn::Set(di, 113 << 23))), sub, norm);
  o = hn::IfThenElse(hn::RebindMask(du, hn::Gt(ai, hn::Set(di, ((127 + 16) << 23) - 1))), special,
                     o);
  return hn::Or(o, hn::ShiftRight<16>(sign));
}

void loadHalf(void *out, const void *a, const void *, const void *, std::size_t n) {
  const std::uint16_t *pa = static_cast<const std::uint16_t *>(a);
  std::uint32_t *po = static_cast<std::uint32_t *>(out);
  drive<std::uint32_t>(n, [&](auto du, std::size_t i) {
    const hn::Rebind<std::uint16_t, decltype(du)> d16;
    hn::StoreU(halfToFloatBits(du, hn::PromoteTo(du, hn::LoadU(d16, pa + i))), du, po + i);
  });
}

void storeHalf(void *out, const void *a, const void *, const void *, std::size_t n) {
  const std::uint32_t *pa = static_cast<const std::uint32_t *>(a);
  std::uint16_t *po = static_cast<std::uint16_t *>(out);
  drive<std::uint32_t>(n, [&](auto du, std::size_t i) {
    const hn::RebindToSigned<decltype(du)> di;
    const hn::Rebind<std::uint16_t, decltype(du)> d16;
    const auto h = floatToHalfBits(du, hn::LoadU(du, pa + i));
    hn::StoreU(hn::DemoteTo(d16, hn::BitCast(di, h)), d16, po + i);
  });
}

void roundToHalf(void *out, const void *a, const void *, const void *, std::size_t n) {
  const std::uint32_t *pa = static_cast<const std::uint32_t *>(a);
  std::uint32_t *po = static_cast<std::uint32_t *>(out);
  drive<std::uint32_t>(n, [&](auto du, std::size_t i) {
    hn::StoreU(halfToFloatBits(du, floatToHalfBits(du, hn::LoadU(du, pa + i))), du, po + i);
  });
}

void loadBool(void *out, const void *a, const void *, const void *, std::size_t n) {
  const std::uint8_t *pa = static_cast<const std::uint8_t *>(a);
  std::uint32_t *po = static_cast<std::uint32_t *>(out);
  drive<std::uint32_t>(n, [&](auto du, std::size_t i) {
    const hn::Rebind<std::uint8_t, decltype(du)> d8;
    const auto v = hn::PromoteTo(du, hn::LoadU(d8, pa + i));
    hn::StoreU(hn::IfThenElseZero(hn::Ne(v, hn::Zero(du)), hn::Set(du, 1u)), du, po + i);
  });
}

void storeBool(void *out, const void *a, const void *, const void *, std::size_t n) {
  const std::uint32_t *pa = static_cast<const std::uint32_t *>(a);
  std::uint8_t *po = static_cast<std::uint8_t *>(out);
  drive<std::uint32_t>(n, [&](auto du, std::size_t i) {
    const hn::RebindToSigned<decltype(du)> di;
    const hn::Rebind<std::uint8_t, decltype(du)> d8;
    hn::StoreU(hn::DemoteTo(d8, hn::BitCast(di, hn::LoadU(du, pa + i))), d8, po + i);
  });
}

void floatToInt(void *out, const void *a, const void *, const void *, std::size_t n) {
  const float *pa = static_cast<const float *>(a);
  std::int32_t *po = static_cast<std::int32_t *>(out);
  drive<float>(n, [&](auto d, std::size_t i) {
    const hn::RebindToSigned<decltype(d)> di;
    hn::StoreU(hn::ConvertTo(di, hn::LoadU(d, pa + i)), di, po + i);
  });
}

void intToFloat(void *out, const void *a, const void *, const void *, std::size_t n) {
  const std::int32_t *pa = static_cast<const std::int32_t *>(a);
  float *po = static_cast<float *>(out);
  drive<std::int32_t>(n, [&](auto di, std::size_t i) {
    const hn::RebindToFloat<decltype(di)> d;
    hn::StoreU(hn::ConvertTo(d, hn::LoadU(di, pa + i)), d, po + i);
  });
}

template <class T>
void toBool(void *out, const void *a, const void *, const void *, std::size_t n) {
  const T *pa = static_cast<const T *>(a);
  std::uint32_t *po = static_cast<std::uint32_t *>(out);
  drive<T>(n, [&](auto d, std::size_t i) {
    const hn::RebindToUnsigned<decltype(d)> du;
    const auto m = hn::RebindMask(du, hn::Ne(hn::LoadU(d, pa + i), hn::Zero(d)));
    hn::StoreU(hn::IfThenElseZero(m, hn::Set(du, 1u)), du, po + i);
  });
}

void loadShort(void *out, const void *a, const void *, const void *, std::size_t n) {
  const std::int16_t *pa = static_cast<const std::int16_t *>(a);
  std::int32_t *po = static_cast<std::int32_t *>(out);
  for (std::size_t i = 0; i < n; ++i)
    po[i] = pa[i];
}
void loadUnsignedShort(void *out, const void *a, const void *, const void *, std::size_t n) {
  const std::uint16_t *pa = static_cast<const std::uint16_t *>(a);
  std::uint32_t *po = static_cast<std::uint32_t *>(out);
  for (std::size_t i = 0; i < n; ++i)
    po[i] = pa[i];
}
void storeShort(void *out, const void *a, const void *, const void *, std::size_t n) {
  const std::uint32_t *pa = static_cast<const std::uint32_t *>(a);
  std::uint16_t *po = static_cast<std::uint16_t *>(out);
  for (std::size_t i = 0; i < n; ++i)
    po[i] = static_cast<std::uint16_t>(pa[i]);
}
std::int32_t wrapShort(std::int32_t x) {
  return static_cast<std::int16_t>(static_cast<std::uint16_t>(static_cast<std::uint32_t>(x)));
}
std::uint32_t wrapUnsignedShort(std::uint32_t x) { return x & 0xffffu; }

// ---- the table ----------------------------------------------------------------------------

using F = float;
using I = std::int32_t;
using U = std::uint32_t;

const KernelFn *Table() {
  static const KernelFn table[] = {
      unary<U, Identity>,                            // CopyF
      loadHalf,                                      // LoadHalf
      storeHalf,                                     // StoreHalf
      roundToHalf,                                   // RoundToHalf
      loadBool,                                      // LoadBool
      storeBool,                                     // StoreBool
      unary<F, Negate>,                              // NegF
      unary<F, Absolute>,                            // AbsF
      unary<F, Exponent>,                            // ExpF
      unary<F, ExponentMinusOne>,                    // Expm1F
      unary<F, Logarithm>,                           // LogF
      unary<F, LogarithmOnePlus>,                    // Log1pF
      unary<F, SquareRoot>,                          // SqrtF
      unary<F, InverseSquareRoot>,                   // RsqrtF
      unary<F, Square>,                              // SquareF
      unary<F, Inverse>,                             // InverseF
      unary<F, HyperbolicTangent>,                   // TanhF
      unary<F, Sigmoid>,                             // SigmoidF
      unary<F, SignumFloat>,                         // SignumF
      unary<F, FloorOp>,                             // FloorF
      unary<F, CeilOp>,                              // CeilF
      unary<F, RoundOp>,                             // RoundF
      unary<F, TruncOp>,                             // TruncF
      unary<F, Cosine>,                              // CosF
      unary<F, Sine>,                                // SinF
      unary<F, ErrorFunction>,                       // ErfF
      unary<F, Relu>,                                // ReluF
      binary<F, AddOp>,                              // AddF
      binary<F, SubOp>,                              // SubF
      binary<F, MulOp>,                              // MulF
      binary<F, DivOp>,                              // DivF
      scalarBinary<F, powScalar>,                    // PowF
      binary<F, MaxOp>,                              // MaxF
      binary<F, MinOp>,                              // MinF
      compare<F, EqOp>,                              // EqF
      compare<F, NeOp>,                              // NeF
      compare<F, LtOp>,                              // LtF
      compare<F, LeOp>,                              // LeF
      compare<F, GtOp>,                              // GtF
      compare<F, GeOp>,                              // GeF
      ternary<F, ClampOp>,                           // ClampF
      unary<I, Negate>,                              // NegI
      unary<I, Absolute>,                            // AbsI
      unary<I, Square>,                              // SquareI
      unary<I, SignumInt>,                           // SignumI
      binary<I, AddOp>,                              // AddI
      binary<I, SubOp>,                              // SubI
      binary<I, MulOp>,                              // MulI
      scalarBinary<I, divInt>,                       // DivI
      binary<I, MaxOp>,                              // MaxI
      binary<I, MinOp>,                              // MinI
      compare<I, EqOp>,                              // EqI
      compare<I, NeOp>,                              // NeI
      compare<I, LtOp>,                              // LtI
      compare<I, IntLeOp>,                           // LeI
      compare<I, GtOp>,                              // GtI
      compare<I, IntGeOp>,                           // GeI
      ternary<I, ClampOp>,                           // ClampI
      scalarBinary<U, divUnsigned>,                  // DivU
      binary<U, MaxOp>,                              // MaxU
      binary<U, MinOp>,                              // MinU
      compare<U, UnsignedCompare<LtOp>>,             // LtU
      compare<U, UnsignedCompare<IntLeOp>>,          // LeU
      compare<U, UnsignedCompare<GtOp>>,             // GtU
      compare<U, UnsignedCompare<IntGeOp>>,          // GeU
      ternary<U, ClampOp>,                           // ClampU
      unary<U, SignumUnsigned>,                      // SignumU
      binary<U, AndOp>,                              // AndB
      binary<U, OrOp>,                               // OrB
      unary<U, NotBool>,                             // NotB
      ternary<U, SelectOp>,                          // Select
      floatToInt,                                    // FloatToInt
      scalarUnary<F, U, floatToUnsigned>,            // FloatToUnsigned
      intToFloat,                                    // IntToFloat
      scalarUnary<U, F, unsignedToFloat>,            // UnsignedToFloat
      intToFloat,                                    // BoolToFloat (0/1 as int32)
      toBool<F>,                                     // FloatToBool
      toBool<I>,                                     // IntToBool
      unary<F, GeluTanh>,                            // GeluTanhF
      binary<F, GeluTanhGrad>,                       // GeluTanhGradF
      scalarUnary<F, F, scalar::asinF>,              // AsinF
      scalarUnary<F, F, scalar::tanF>,               // TanF
      scalarUnary<F, F, scalar::cbrtF>,              // CbrtF
      scalarUnary<F, F, scalar::exp2F>,              // Exp2F
      scalarUnary<F, F, scalar::nearbyIntF>,         // NearbyIntF
      scalarUnary<F, F, scalar::geluErfF>,           // GeluErfF
      scalarUnary<F, U, scalar::isFiniteF>,          // IsFiniteF
      scalarUnary<F, U, scalar::isInfF>,             // IsInfF
      scalarUnary<F, U, scalar::isNanF>,             // IsNanF
      scalarBinary<F, scalar::atan2F>,               // Atan2F
      scalarBinary<F, scalar::remF>,                 // RemF
      scalarBinary<F, scalar::invStdDevToVarianceF>, // InvStdDevToVarianceF
      scalarBinary<F, scalar::varianceToInvStdDevF>, // VarianceToInvStdDevF
      unary<U, BitNot>,                              // BitNotI
      scalarUnary<U, U, scalar::popcount>,           // PopcountI
      scalarUnary<U, U, scalar::countLeadingZeros>,  // ClzI
      binary<U, AndOp>,                              // BitAndI
      binary<U, OrOp>,                               // BitOrI
      binary<U, XorOp>,                              // BitXorI
      binary<U, XnorOp>,                             // BitXnorI
      scalarBinary<U, scalar::shl>,                  // ShlI
      scalarBinary<U, scalar::shr>,                  // ShrI
      scalarBinary<I, scalar::shrSignExtend>,        // ShrSEI
      scalarBinary<I, scalar::remI>,                 // RemI
      scalarBinary<U, scalar::remU>,                 // RemU
      loadShort,                                     // LoadShort
      loadUnsignedShort,                             // LoadUnsignedShort
      storeShort,                                    // StoreShort
      scalarUnary<I, I, wrapShort>,                  // WrapShort
      scalarUnary<U, U, wrapUnsignedShort>,          // WrapUnsignedShort
  };
  static_assert(sizeof(table) / sizeof(table[0]) == kNumOps, "one kernel per opcode");
  return table;
}

} // namespace HWY_NAMESPACE
} // namespace tessera::codelets::popops::mapexpr
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::codelets::popops::mapexpr {
HWY_EXPORT(Table);
const KernelFn *kernelTable() {
  static const KernelFn *const table = TESSERA_DYNAMIC_POINTER(Table)();
  return table;
}
} // namespace tessera::codelets::popops::mapexpr
#endif
