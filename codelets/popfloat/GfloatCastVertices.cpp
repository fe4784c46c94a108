// The gfloat cast vertices, one per tile and direction:
//  CastToGfloat<In,Out,RoundType>: out = in rounded to the format (Out FLOAT/HALF: the value;
//    CHAR/SHORT: its packed code), region by region;
//  CastToGfloatInPlace<T,RoundType>: the same, in place;
//  CastGfloatToNative<In,Out>: codes (CHAR/SHORT) or values (FLOAT/HALF) -> native values.
// The format comes from the params tensor at run time. Stochastic modes take 32 random bits per
// element from poprand's Philox generator: key = the seed state, counter = (row-major index of
// the element, 0, Stream::GfloatRounding), so every element's noise is fixed by the seed alone.
#include <cmath>
#include <string>
#include <type_traits>

#include <poplar/Half.hpp>
#include <poplar/Vertex.hpp>

#include "popfloat/PopfloatCodelets.hpp"
#include "popfloat/kernels/GfloatArithmetic.hpp"
#include "poprand/kernels/RandomReference.hpp"

namespace tessera::codelets::popfloat {
namespace {

/// The Philox stream of gfloat stochastic rounding (unused by poprand's own generators).
constexpr auto kGfloatRoundingStream = static_cast<poprand::Stream>(0x20);

constexpr bool isStochastic(Round r) { return r == Round::SR || r == Round::SX; }

/// A double in (0, 1) from the top 24 bits of a word.
double unitOpen(std::uint32_t w) { return (static_cast<double>(w >> 8) + 0.5) * 0x1p-24; }

/// One draw of a sampled density from a Philox block (words 1 and 2; word 0 is the SR word).
double drawNoise(Density d, const poprand::PhiloxBlock &b, double offset, double scale) {
  switch (d) {
  case Density::LOGISTIC:
  case Density::TRUNCATED_LOGISTIC: {
    const double u = unitOpen(b[1]);
    return offset + scale * std::log(u / (1.0 - u));
  }
  case Density::LAPLACE:
  case Density::TRUNCATED_LAPLACE: {
    const double u = unitOpen(b[1]) - 0.5;
    return offset - scale * (u < 0 ? -1.0 : 1.0) * std::log(1.0 - 2.0 * std::fabs(u));
  }
  default: { // the normal family
    const double z =
        std::sqrt(-2.0 * std::log(unitOpen(b[1]))) * std::cos(6.283185307179586 * unitOpen(b[2]));
    const double v = offset + scale * z;
    if (d == Density::LOGIT_NORMAL || d == Density::TRUNCATED_LOGIT_NORMAL)
      return 1.0 / (1.0 + std::exp(-v));
    return v;
  }
  }
}

constexpr bool isTruncated(Density d) {
  return d == Density::TRUNCATED_NORMAL || d == Density::TRUNCATED_LOGISTIC ||
         d == Density::TRUNCATED_LAPLACE || d == Density::TRUNCATED_LOGIT_NORMAL;
}
/// Attempts (Philox blocks) a truncated density draws before falling back to uniform noise.
constexpr std::uint32_t kTruncatedAttempts = 8;

/// Element `index`'s noise sample: clipped to [min, max], or for truncated densities the first
/// of up to kTruncatedAttempts draws inside it (attempt a from the block of attempt a), else
/// min + (max - min) u with u from word 0 of attempt 0.
double sampleNoise(const RoundingSpec &r, const poprand::StreamKey &key, std::uint64_t index,
                   const poprand::PhiloxBlock &first) {
  const double lo = r.noiseMin, hi = r.noiseMax;
  if (!isTruncated(r.density))
    return std::fmin(std::fmax(drawNoise(r.density, first, r.noiseOffset, r.noiseScale), lo), hi);
  for (std::uint32_t attempt = 0; attempt < kTruncatedAttempts; ++attempt) {
    const poprand::PhiloxBlock b =
        attempt == 0 ? first : poprand::elementBlock(key, index, attempt);
    const double v = drawNoise(r.density, b, r.noiseOffset, r.noiseScale);
    if (v >= lo && v <= hi)
      return v;
  }
  return lo + (hi - lo) * unitOpen(first[0]);
}

template <class T> float toFloat(T x) { return static_cast<float>(x); }

/// A gfloat value (or code source) as the output type: packed code or native value.
template <class Out> Out fromGfloat(double value, const GfloatFormat &f) {
  if constexpr (std::is_integral_v<Out>) {
    return static_cast<Out>(static_cast<std::make_unsigned_t<Out>>(pack(value, f)));
  } else {
    return Out(static_cast<float>(value));
  }
}

/// Fields and per-element work shared by the two native-to-gfloat vertices.
template <Round R> class CastState : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<int>> param;
  poplar::Input<poplar::Vector<unsigned>> seed; ///< Stochastic modes only.
  poplar::Vector<unsigned long long> baseIndex; ///< Row-major index of each region's start.
  unsigned enableNanoo;
  unsigned numSRBits;
  unsigned srDensity;
  float srNoiseMin;
  float srNoiseMax;
  float srNoiseOffset;
  float srNoiseScale;
  unsigned long long roundDownThreshold;

  RoundingSpec spec() const {
    RoundingSpec r;
    r.mode = R;
    r.nanoo = enableNanoo != 0;
    r.numSRBits = numSRBits;
    r.density = static_cast<Density>(srDensity);
    r.noiseMin = srNoiseMin;
    r.noiseMax = srNoiseMax;
    r.noiseOffset = srNoiseOffset;
    r.noiseScale = srNoiseScale;
    r.roundDownThreshold = roundDownThreshold;
    return r;
  }
  /// Calls f(region, j, value) for every element of `regions`, value being the rounded double.
  template <class Regions, class F> void forEach(const Regions &regions, F &&f) const {
    const GfloatFormat format = formatFromParams(&param[0]);
    const RoundingSpec r = spec();
    poprand::StreamKey key;
    if constexpr (isStochastic(R))
      key = {seed[0], seed[1], 0, kGfloatRoundingStream};
    for (std::size_t g = 0; g < regions.size(); ++g) {
      const auto &region = regions[g];
      for (std::size_t j = 0; j < region.size(); ++j) {
        std::uint32_t word = 0;
        double sample = 0.0;
        if constexpr (isStochastic(R)) {
          const std::uint64_t index = baseIndex[g] + j;
          const poprand::PhiloxBlock block = poprand::elementBlock(key, index);
          word = block[0];
          if (R == Round::SX && isSampledDensity(r.density))
            sample = sampleNoise(r, key, index, block);
        }
        f(g, j, quantise(toFloat(region[j]), format, r, word, sample), format);
      }
    }
  }
};

template <class In, class Out, Round R> class CastToGfloat : public CastState<R> {
public:
  poplar::Input<poplar::VectorList<In>> in;
  poplar::Output<poplar::VectorList<Out>> out;

  void compute() {
    this->forEach(in, [&](std::size_t g, std::size_t j, double v, const GfloatFormat &f) {
      out[g][j] = fromGfloat<Out>(v, f);
    });
  }
  std::uint64_t cycleEstimate() const {
    std::uint64_t n = 0;
    for (const auto &region : in)
      n += region.size();
    return 30 + (isStochastic(R) ? 40 : 8) * n;
  }
};

template <class T, Round R> class CastToGfloatInPlace : public CastState<R> {
public:
  poplar::InOut<poplar::VectorList<T>> inOut;

  void compute() {
    this->forEach(inOut, [&](std::size_t g, std::size_t j, double v, const GfloatFormat &f) {
      inOut[g][j] = fromGfloat<T>(v, f);
    });
  }
  std::uint64_t cycleEstimate() const {
    std::uint64_t n = 0;
    for (const auto &region : inOut)
      n += region.size();
    return 30 + (isStochastic(R) ? 40 : 8) * n;
  }
};

template <class In, class Out> class CastGfloatToNative : public poplar::Vertex {
public:
  poplar::Input<poplar::VectorList<In>> in;
  poplar::Output<poplar::VectorList<Out>> out;
  poplar::Input<poplar::Vector<int>> param;

  void compute() {
    const GfloatFormat format = formatFromParams(&param[0]);
    for (std::size_t g = 0; g < in.size(); ++g) {
      for (std::size_t j = 0; j < in[g].size(); ++j) {
        if constexpr (std::is_integral_v<In>) {
          const unsigned code = static_cast<std::make_unsigned_t<In>>(in[g][j]);
          out[g][j] = Out(static_cast<float>(unpack(code, format)));
        } else {
          const float x = toFloat(in[g][j]);
          out[g][j] = Out(std::isnan(x) ? canonicalNaN() : x);
        }
      }
    }
  }
  std::uint64_t cycleEstimate() const {
    std::uint64_t n = 0;
    for (const auto &region : in)
      n += region.size();
    return 30 + 6 * n;
  }
};

// ---- registration ---------------------------------------------------------------------------

template <class T> const char *typeName() {
  if constexpr (std::is_same_v<T, float>)
    return "float";
  else if constexpr (std::is_same_v<T, poplar::half>)
    return "half";
  else if constexpr (std::is_same_v<T, char>)
    return "char";
  else
    return "short";
}

constexpr const char *kRoundNames[] = {"INV", "RZ", "RN", "RA", "RU", "RD", "SR", "SX"};

template <Round R> std::string roundArg() {
  return std::string("popfloat::experimental::RoundType::") + kRoundNames[static_cast<unsigned>(R)];
}

/// The CastState fields of vertex V (seed only for the stochastic modes, which read it).
template <class V, Round R>
tessera::VertexTypeBuilder<V> &stateFields(tessera::VertexTypeBuilder<V> &b) {
  b.field("param", &CastState<R>::param)
      .field("baseIndex", &CastState<R>::baseIndex)
      .field("enableNanoo", &CastState<R>::enableNanoo)
      .field("numSRBits", &CastState<R>::numSRBits)
      .field("srDensity", &CastState<R>::srDensity)
      .field("srNoiseMin", &CastState<R>::srNoiseMin)
      .field("srNoiseMax", &CastState<R>::srNoiseMax)
      .field("srNoiseOffset", &CastState<R>::srNoiseOffset)
      .field("srNoiseScale", &CastState<R>::srNoiseScale)
      .field("roundDownThreshold", &CastState<R>::roundDownThreshold);
  if constexpr (isStochastic(R))
    b.field("seed", &CastState<R>::seed);
  return b;
}

template <class In, class Out, Round R> void registerCast() {
  using V = CastToGfloat<In, Out, R>;
  tessera::VertexTypeBuilder<V> b(std::string("popfloat::experimental::CastToGfloat<") +
                                  typeName<In>() + "," + typeName<Out>() + "," + roundArg<R>() +
                                  ">");
  b.field("in", &V::in).field("out", &V::out);
  stateFields<V, R>(b).add();
}

template <class T, Round R> void registerInPlace() {
  using V = CastToGfloatInPlace<T, R>;
  tessera::VertexTypeBuilder<V> b(std::string("popfloat::experimental::CastToGfloatInPlace<") +
                                  typeName<T>() + "," + roundArg<R>() + ">");
  b.field("inOut", &V::inOut);
  stateFields<V, R>(b).add();
}

template <class In, class Out> void registerToNative() {
  using V = CastGfloatToNative<In, Out>;
  tessera::VertexTypeBuilder<V>(std::string("popfloat::experimental::CastGfloatToNative<") +
                                typeName<In>() + "," + typeName<Out>() + ">")
      .field("in", &V::in)
      .field("out", &V::out)
      .field("param", &V::param)
      .add();
}

template <Round R> void registerMode() {
  registerInPlace<float, R>();
  registerInPlace<poplar::half, R>();
  registerCast<float, float, R>();
  registerCast<float, poplar::half, R>();
  registerCast<float, char, R>();
  registerCast<float, short, R>();
  registerCast<poplar::half, float, R>();
  registerCast<poplar::half, poplar::half, R>();
  registerCast<poplar::half, char, R>();
  registerCast<poplar::half, short, R>();
}

} // namespace

void registerGfloatCastVertices() {
  registerMode<Round::RZ>();
  registerMode<Round::RN>();
  registerMode<Round::RA>();
  registerMode<Round::RU>();
  registerMode<Round::RD>();
  registerMode<Round::SR>();
  registerMode<Round::SX>();
  registerToNative<char, float>();
  registerToNative<char, poplar::half>();
  registerToNative<short, float>();
  registerToNative<short, poplar::half>();
  registerToNative<float, float>();
  registerToNative<float, poplar::half>();
  registerToNative<poplar::half, float>();
  registerToNative<poplar::half, poplar::half>();
}

} // namespace tessera::codelets::popfloat
