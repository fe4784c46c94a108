// Cast vertices besides the fused map (which converts among float, half, int, unsigned int and
// bool):
//   popops::Cast1D<Src,Dst>  out[i] = in[i] converted, over one run, for every pair where one
//       side is an 8- or 16-bit integer type (char, signed char, unsigned char, short, unsigned
//       short) and the other any of those or float, half, int, unsigned int, bool:
//       floating point to a small integer truncates toward zero and saturates to its range
//       (NaN gives 0); integer to a narrower integer keeps the value modulo 2^bits (C++'s
//       conversion); an integer to half goes through float (as the map's cast does); anything
//       to bool is x != 0. Also long long and unsigned long long from any integer type (as
//       C++ converts).
//   popops::CheckAccuracyWhenCast<float,half>: output = whether the float `input` survives a
//       cast to half within the relative error `tolerance` — |input| no larger than the largest
//       half and |float(half(input)) − input| < tolerance · |input|, evaluated in float (so 0,
//       NaN and values that overflow or flush to zero give false).
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include <poplar/Half.hpp>
#include <poplar/Vertex.hpp>

#include "popops/PopopsCodelets.hpp"

namespace tessera::codelets::popops {
namespace {

class CheckAccuracyWhenCastFloatToHalf : public poplar::Vertex {
public:
  poplar::Input<float> input;
  poplar::Output<bool> output;
  float tolerance;

  bool compute() {
    constexpr float kLargestHalf = 65504.0f;
    const float x = *input;
    const float magnitude = std::fabs(x);
    if (!(magnitude <= kLargestHalf)) { // also NaN
      *output = false;
      return true;
    }
    const float back = static_cast<float>(poplar::half(x));
    *output = magnitude * tolerance > std::fabs(back - x);
    return true;
  }
  std::uint64_t cycleEstimate() const { return 30; }
};

template <class T>
constexpr bool kFloating = std::is_same_v<T, float> || std::is_same_v<T, poplar::half>;

template <class Src, class Dst> Dst convert(Src x) {
  if constexpr (std::is_same_v<Dst, bool>) {
    if constexpr (kFloating<Src>)
      return static_cast<float>(x) != 0.0f;
    else
      return x != 0;
  } else if constexpr (kFloating<Src>) {
    const float f = static_cast<float>(x);
    if constexpr (kFloating<Dst>) {
      return Dst(f);
    } else {
      if (std::isnan(f))
        return Dst(0);
      constexpr float lo = static_cast<float>(std::numeric_limits<Dst>::min());
      constexpr float hi = static_cast<float>(std::numeric_limits<Dst>::max());
      return static_cast<Dst>(f <= lo ? lo : f >= hi ? hi : f);
    }
  } else if constexpr (std::is_same_v<Dst, float>) {
    return static_cast<float>(x);
  } else if constexpr (std::is_same_v<Dst, poplar::half>) {
    return poplar::half(static_cast<float>(x));
  } else {
    return static_cast<Dst>(x);
  }
}

template <class Src, class Dst> class Cast1D : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<Src>> src;
  poplar::Output<poplar::Vector<Dst>> dst;

  bool compute() {
    for (std::size_t i = 0; i < dst.size(); ++i)
      dst[i] = convert<Src, Dst>(src[i]);
    return true;
  }
  std::uint64_t cycleEstimate() const { return 20 + dst.size(); }
};

template <class T> struct TypeName;
#define TESSERA_CAST_TYPE_NAME(T, N)                                                               \
  template <> struct TypeName<T> { static constexpr const char *value = N; };
TESSERA_CAST_TYPE_NAME(float, "float")
TESSERA_CAST_TYPE_NAME(poplar::half, "half")
TESSERA_CAST_TYPE_NAME(int, "int")
TESSERA_CAST_TYPE_NAME(unsigned, "unsigned int")
TESSERA_CAST_TYPE_NAME(bool, "bool")
TESSERA_CAST_TYPE_NAME(char, "char")
TESSERA_CAST_TYPE_NAME(signed char, "signed char")
TESSERA_CAST_TYPE_NAME(unsigned char, "unsigned char")
TESSERA_CAST_TYPE_NAME(short, "short")
TESSERA_CAST_TYPE_NAME(unsigned short, "unsigned short")
TESSERA_CAST_TYPE_NAME(long long, "long long")
TESSERA_CAST_TYPE_NAME(unsigned long long, "unsigned long long")
#undef TESSERA_CAST_TYPE_NAME

template <class T>
constexpr bool kSmallInteger =
    std::is_same_v<T, char> || std::is_same_v<T, signed char> || std::is_same_v<T, unsigned char> ||
    std::is_same_v<T, short> || std::is_same_v<T, unsigned short>;

template <class T>
constexpr bool kLongLong = std::is_same_v<T, long long> || std::is_same_v<T, unsigned long long>;

/// The pairs Cast1D serves: a small integer side among the ten narrower types, or a 64-bit
/// integer destination from any integer type (a 64-bit source converts only to 64 bits).
template <class Src, class Dst> constexpr bool kCast1DPair() {
  if constexpr (kLongLong<Dst>)
    return !kFloating<Src>;
  else if constexpr (kLongLong<Src>)
    return false;
  else
    return kSmallInteger<Src> || kSmallInteger<Dst>;
}

template <class Src, class Dst> void registerCast1D() {
  if constexpr (kCast1DPair<Src, Dst>()) {
    using V = Cast1D<Src, Dst>;
    const std::string name =
        std::string("popops::Cast1D<") + TypeName<Src>::value + "," + TypeName<Dst>::value + ">";
    tessera::VertexTypeBuilder<V>(name).field("src", &V::src).field("dst", &V::dst).add();
  }
}

template <class Src, class... Dsts> void registerCastsFrom() { (registerCast1D<Src, Dsts>(), ...); }

template <class... Ts> void registerAllCasts() { (registerCastsFrom<Ts, Ts...>(), ...); }

} // namespace

void registerCastVertices() {
  registerAllCasts<float, poplar::half, int, unsigned, bool, char, signed char, unsigned char,
                   short, unsigned short, long long, unsigned long long>();
  using V = CheckAccuracyWhenCastFloatToHalf;
  tessera::VertexTypeBuilder<V>("popops::CheckAccuracyWhenCast<float,half>")
      .field("input", &V::input)
      .field("output", &V::output)
      .field("tolerance", &V::tolerance)
      .add();
}

} // namespace tessera::codelets::popops
