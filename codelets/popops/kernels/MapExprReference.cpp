// Scalar references of the interpreter's kernels: plain loops over the C++ standard library,
// what the kernel tests compare the Highway table with.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include <poplar/Half.hpp>

#include "popops/MapExprBytecode.hpp"
#include "popops/MapExprScalarOps.hpp"

namespace tessera::codelets::popops::mapexpr {
namespace {

using F = float;
using I = std::int32_t;
using U = std::uint32_t;

template <class In, class Out, class Fn> KernelFn unaryRef() {
  return [](void *out, const void *a, const void *, const void *, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
      static_cast<Out *>(out)[i] = Fn{}(static_cast<const In *>(a)[i]);
  };
}
template <class In, class Out, class Fn> KernelFn binaryRef() {
  return [](void *out, const void *a, const void *b, const void *, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
      static_cast<Out *>(out)[i] =
          Fn{}(static_cast<const In *>(a)[i], static_cast<const In *>(b)[i]);
  };
}
template <class In, class Fn> KernelFn ternaryRef() {
  return [](void *out, const void *a, const void *b, const void *c, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
      static_cast<In *>(out)[i] = Fn{}(static_cast<const In *>(a)[i], static_cast<const In *>(b)[i],
                                       static_cast<const In *>(c)[i]);
  };
}

#define REF1(NAME, T, EXPR)                                                                        \
  struct NAME {                                                                                    \
    auto operator()(T x) const { return EXPR; }                                                    \
  };
#define REF2(NAME, T, EXPR)                                                                        \
  struct NAME {                                                                                    \
    auto operator()(T x, T y) const { return EXPR; }                                               \
  };

REF1(CopyR, U, x)
REF1(LoadHalfR, std::uint16_t, poplar::halfBitsToFloat(x))
REF1(StoreHalfR, F, poplar::floatToHalfBits(x))
REF1(RoundToHalfR, F, poplar::halfBitsToFloat(poplar::floatToHalfBits(x)))
REF1(LoadBoolR, std::uint8_t, U(x != 0))
REF1(StoreBoolR, U, std::uint8_t(x))
REF1(NegR, F, -x)
REF1(AbsR, F, std::fabs(x))
REF1(ExpR, F, std::exp(x))
REF1(Expm1R, F, std::expm1(x))
REF1(LogR, F, std::log(x))
REF1(Log1pR, F, std::log1p(x))
REF1(SqrtR, F, std::sqrt(x))
REF1(RsqrtR, F, F(1.0 / std::sqrt(double(x))))
REF1(SquareR, F, x *x)
REF1(InverseR, F, 1.0f / x)
REF1(TanhR, F, std::tanh(x))
REF1(SigmoidR, F, F(1.0 / (1.0 + std::exp(-double(x)))))
REF1(SignumR, F, x > 0 ? 1.0f : (x < 0 ? -1.0f : x))
REF1(FloorR, F, std::floor(x))
REF1(CeilR, F, std::ceil(x))
REF1(RoundR, F, std::round(x))
REF1(TruncR, F, std::trunc(x))
REF1(CosR, F, std::cos(x))
REF1(SinR, F, std::sin(x))
REF1(ErfR, F, std::erf(x))
REF1(ReluR, F, x > 0 ? x : 0.0f)
REF2(AddR, F, x + y)
REF2(SubR, F, x - y)
REF2(MulR, F, x *y)
REF2(DivR, F, x / y)
REF2(PowR, F, std::pow(x, y))
REF2(MaxR, F, std::fmax(x, y))
REF2(MinR, F, std::fmin(x, y))
REF2(EqR, F, U(x == y))
REF2(NeR, F, U(x != y))
REF2(LtR, F, U(x < y))
REF2(LeR, F, U(x <= y))
REF2(GtR, F, U(x > y))
REF2(GeR, F, U(x >= y))
struct ClampFR {
  F operator()(F x, F lo, F hi) const { return std::fmin(std::fmax(x, lo), hi); }
};
REF1(NegIR, I, I(0u - U(x)))
REF1(AbsIR, I, x < 0 ? I(0u - U(x)) : x)
REF1(SquareIR, I, I(U(x) * U(x)))
REF1(SignumIR, I, I((x > 0) - (x < 0)))
REF2(AddIR, I, I(U(x) + U(y)))
REF2(SubIR, I, I(U(x) - U(y)))
REF2(MulIR, I, I(U(x) * U(y)))
REF2(DivIR, I, y == 0 ? 0 : (y == -1 ? I(0u - U(x)) : x / y))
REF2(MaxIR, I, x > y ? x : y)
REF2(MinIR, I, x < y ? x : y)
REF2(EqIR, I, U(x == y))
REF2(NeIR, I, U(x != y))
REF2(LtIR, I, U(x < y))
REF2(LeIR, I, U(x <= y))
REF2(GtIR, I, U(x > y))
REF2(GeIR, I, U(x >= y))
struct ClampIR {
  I operator()(I x, I lo, I hi) const { return std::min(std::max(x, lo), hi); }
};
REF2(DivUR, U, y == 0 ? 0u : x / y)
REF2(MaxUR, U, x > y ? x : y)
REF2(MinUR, U, x < y ? x : y)
REF2(LtUR, U, U(x < y))
REF2(LeUR, U, U(x <= y))
REF2(GtUR, U, U(x > y))
REF2(GeUR, U, U(x >= y))
struct ClampUR {
  U operator()(U x, U lo, U hi) const { return std::min(std::max(x, lo), hi); }
};
REF1(SignumUR, U, U(x != 0))
REF2(AndBR, U, U(x &&y))
REF2(OrBR, U, U(x || y))
REF1(NotBR, U, U(!x))
struct SelectR {
  U operator()(U a, U b, U c) const { return c ? a : b; }
};
REF1(FloatToIntR, F,
     std::isnan(x)        ? std::numeric_limits<I>::min()
     : x >= 2147483648.0f ? std::numeric_limits<I>::max()
     : x < -2147483648.0f ? std::numeric_limits<I>::min()
                          : I(x))
REF1(FloatToUnsignedR, F,
     !(x > 0.0f) ? 0u : (x >= 4294967296.0f ? std::numeric_limits<U>::max() : U(x)))
REF1(IntToFloatR, I, F(x))
REF1(UnsignedToFloatR, U, F(x))
REF1(BoolToFloatR, U, F(x))
REF1(FloatToBoolR, F, U(x != 0.0f))
REF1(IntToBoolR, I, U(x != 0))
// The GELU kernels' references: the tanh form as written out, independent of the kernels'
// sigmoid form.
constexpr double kGeluAlpha = 0.7978845608028654, kGeluBeta = 0.044715;
REF1(GeluTanhR, F,
     float(0.5 * x * (1.0 + std::tanh(kGeluAlpha * x * (1.0 + kGeluBeta * double(x) * x)))))
struct GeluTanhGradR {
  float operator()(F x, F dy) const {
    const double xd = x, t = std::tanh(kGeluAlpha * xd * (1.0 + kGeluBeta * xd * xd));
    const double dInner = kGeluAlpha * (1.0 + 3.0 * kGeluBeta * xd * xd);
    return float(dy * (0.5 * (1.0 + t) + 0.5 * xd * (1.0 - t * t) * dInner));
  }
};

// The ops written once in MapExprScalarOps.hpp; the bit ops spelled out with C++ operators.
template <float (*Fn)(float)> struct FloatFn {
  float operator()(F x) const { return Fn(x); }
};
template <U (*Fn)(float)> struct FloatPredicate {
  U operator()(F x) const { return Fn(x); }
};
template <float (*Fn)(float, float)> struct FloatFn2 {
  float operator()(F x, F y) const { return Fn(x, y); }
};
REF1(BitNotR, U, U(~x))
REF1(PopcountR, U, scalar::popcount(x))
REF1(ClzR, U, scalar::countLeadingZeros(x))
REF2(BitAndR, U, U(x &y))
REF2(BitOrR, U, U(x | y))
REF2(BitXorR, U, U(x ^ y))
REF2(BitXnorR, U, U(~(x ^ y)))
REF2(ShlR, U, scalar::shl(x, y))
REF2(ShrR, U, scalar::shr(x, y))
REF2(ShrSER, I, scalar::shrSignExtend(x, y))
REF2(RemIR, I, scalar::remI(x, y))
REF2(RemUR, U, scalar::remU(x, y))
REF1(LoadShortR, std::uint16_t, I(std::int16_t(x)))
REF1(LoadUnsignedShortR, std::uint16_t, U(x))
REF1(StoreShortR, U, std::uint16_t(x & 0xffffu))
REF1(WrapShortR, I, I(std::int16_t(U(x) & 0xffffu)))
REF1(WrapUnsignedShortR, U, U(x % 65536u))

} // namespace

const KernelFn *referenceTable() {
  static const KernelFn table[] = {
      unaryRef<U, U, CopyR>(),
      unaryRef<std::uint16_t, F, LoadHalfR>(),
      unaryRef<F, std::uint16_t, StoreHalfR>(),
      unaryRef<F, F, RoundToHalfR>(),
      unaryRef<std::uint8_t, U, LoadBoolR>(),
      unaryRef<U, std::uint8_t, StoreBoolR>(),
      unaryRef<F, F, NegR>(),
      unaryRef<F, F, AbsR>(),
      unaryRef<F, F, ExpR>(),
      unaryRef<F, F, Expm1R>(),
      unaryRef<F, F, LogR>(),
      unaryRef<F, F, Log1pR>(),
      unaryRef<F, F, SqrtR>(),
      unaryRef<F, F, RsqrtR>(),
      unaryRef<F, F, SquareR>(),
      unaryRef<F, F, InverseR>(),
      unaryRef<F, F, TanhR>(),
      unaryRef<F, F, SigmoidR>(),
      unaryRef<F, F, SignumR>(),
      unaryRef<F, F, FloorR>(),
      unaryRef<F, F, CeilR>(),
      unaryRef<F, F, RoundR>(),
      unaryRef<F, F, TruncR>(),
      unaryRef<F, F, CosR>(),
      unaryRef<F, F, SinR>(),
      unaryRef<F, F, ErfR>(),
      unaryRef<F, F, ReluR>(),
      binaryRef<F, F, AddR>(),
      binaryRef<F, F, SubR>(),
      binaryRef<F, F, MulR>(),
      binaryRef<F, F, DivR>(),
      binaryRef<F, F, PowR>(),
      binaryRef<F, F, MaxR>(),
      binaryRef<F, F, MinR>(),
      binaryRef<F, U, EqR>(),
      binaryRef<F, U, NeR>(),
      binaryRef<F, U, LtR>(),
      binaryRef<F, U, LeR>(),
      binaryRef<F, U, GtR>(),
      binaryRef<F, U, GeR>(),
      ternaryRef<F, ClampFR>(),
      unaryRef<I, I, NegIR>(),
      unaryRef<I, I, AbsIR>(),
      unaryRef<I, I, SquareIR>(),
      unaryRef<I, I, SignumIR>(),
      binaryRef<I, I, AddIR>(),
      binaryRef<I, I, SubIR>(),
      binaryRef<I, I, MulIR>(),
      binaryRef<I, I, DivIR>(),
      binaryRef<I, I, MaxIR>(),
      binaryRef<I, I, MinIR>(),
      binaryRef<I, U, EqIR>(),
      binaryRef<I, U, NeIR>(),
      binaryRef<I, U, LtIR>(),
      binaryRef<I, U, LeIR>(),
      binaryRef<I, U, GtIR>(),
      binaryRef<I, U, GeIR>(),
      ternaryRef<I, ClampIR>(),
      binaryRef<U, U, DivUR>(),
      binaryRef<U, U, MaxUR>(),
      binaryRef<U, U, MinUR>(),
      binaryRef<U, U, LtUR>(),
      binaryRef<U, U, LeUR>(),
      binaryRef<U, U, GtUR>(),
      binaryRef<U, U, GeUR>(),
      ternaryRef<U, ClampUR>(),
      unaryRef<U, U, SignumUR>(),
      binaryRef<U, U, AndBR>(),
      binaryRef<U, U, OrBR>(),
      unaryRef<U, U, NotBR>(),
      ternaryRef<U, SelectR>(),
      unaryRef<F, I, FloatToIntR>(),
      unaryRef<F, U, FloatToUnsignedR>(),
      unaryRef<I, F, IntToFloatR>(),
      unaryRef<U, F, UnsignedToFloatR>(),
      unaryRef<U, F, BoolToFloatR>(),
      unaryRef<F, U, FloatToBoolR>(),
      unaryRef<I, U, IntToBoolR>(),
      unaryRef<F, F, GeluTanhR>(),
      binaryRef<F, F, GeluTanhGradR>(),
      unaryRef<F, F, FloatFn<scalar::asinF>>(),
      unaryRef<F, F, FloatFn<scalar::tanF>>(),
      unaryRef<F, F, FloatFn<scalar::cbrtF>>(),
      unaryRef<F, F, FloatFn<scalar::exp2F>>(),
      unaryRef<F, F, FloatFn<scalar::nearbyIntF>>(),
      unaryRef<F, F, FloatFn<scalar::geluErfF>>(),
      unaryRef<F, U, FloatPredicate<scalar::isFiniteF>>(),
      unaryRef<F, U, FloatPredicate<scalar::isInfF>>(),
      unaryRef<F, U, FloatPredicate<scalar::isNanF>>(),
      binaryRef<F, F, FloatFn2<scalar::atan2F>>(),
      binaryRef<F, F, FloatFn2<scalar::remF>>(),
      binaryRef<F, F, FloatFn2<scalar::invStdDevToVarianceF>>(),
      binaryRef<F, F, FloatFn2<scalar::varianceToInvStdDevF>>(),
      unaryRef<U, U, BitNotR>(),
      unaryRef<U, U, PopcountR>(),
      unaryRef<U, U, ClzR>(),
      binaryRef<U, U, BitAndR>(),
      binaryRef<U, U, BitOrR>(),
      binaryRef<U, U, BitXorR>(),
      binaryRef<U, U, BitXnorR>(),
      binaryRef<U, U, ShlR>(),
      binaryRef<U, U, ShrR>(),
      binaryRef<I, I, ShrSER>(),
      binaryRef<I, I, RemIR>(),
      binaryRef<U, U, RemUR>(),
      unaryRef<std::uint16_t, I, LoadShortR>(),
      unaryRef<std::uint16_t, U, LoadUnsignedShortR>(),
      unaryRef<U, std::uint16_t, StoreShortR>(),
      unaryRef<I, I, WrapShortR>(),
      unaryRef<U, U, WrapUnsignedShortR>(),
  };
  static_assert(sizeof(table) / sizeof(table[0]) == kNumOps, "one reference per opcode");
  return table;
}

const char *opName(Op op) {
  static const char *const names[] = {
#define TESSERA_MAPEXPR_NAME(name, in, out) #name,
      TESSERA_MAPEXPR_OPS(TESSERA_MAPEXPR_NAME)
#undef TESSERA_MAPEXPR_NAME
  };
  const auto i = static_cast<std::uint32_t>(op);
  return i < kNumOps ? names[i] : "?";
}

} // namespace tessera::codelets::popops::mapexpr
