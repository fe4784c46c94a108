// popops casts to and from QUARTER, one vertex per run of the output on its tile:
//   popops::CastToQuarter<float|half>    out[i] = encode(in[i]) under the output's metadata
//   popops::CastFromQuarter<float|half>  out[i] = decode(in[i]) under the input's metadata
//   popops::CastQuarterToQuarter         re-encodes under another format or scale
//   popops::CastToQuarter<I>, CastFromQuarter<I> for I an integer type (int, unsigned int, bool,
//       char, signed char, unsigned char, short, unsigned short): through float inside the
//       vertex, converting exactly as the two-step program cast does (the map's and Cast1D's
//       float/integer conversions), so one compute set gives the same bits.
// Fields are Poplar's codelet types (<poplar/QuarterFloat.hpp>): `quarter` elements and the
// packed `MetadataType`; the arithmetic is tessera::quarter's, the same the host conversions
// use, so tiles and host agree bit for bit.
// A scalar loop: a byte table lookup would not beat it for the sizes casts see.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <poplar/Half.hpp>
#include <poplar/QuarterFloat.hpp>
#include <poplar/Vertex.hpp>
#include <tessera/QuarterCodec.hpp>

#include "popops/PopopsCodelets.hpp"

namespace tessera::codelets::popops {
namespace {

/// This worker's contiguous share [begin, end) of n elements.
struct WorkerRange {
  std::size_t begin, end;
};
WorkerRange share(std::size_t n, unsigned workerId, unsigned workers) {
  return {n * workerId / workers, n * (workerId + 1) / workers};
}

template <class T> class CastToQuarter : public poplar::MultiVertex {
public:
  poplar::Input<poplar::Vector<T>> in;
  poplar::Output<poplar::Vector<poplar::quarter>> out;
  poplar::Input<poplar::MetadataType> metadata;

  bool compute(unsigned workerId) {
    const auto r = share(out.size(), workerId, numWorkers());
    const unsigned char md = *metadata;
    for (std::size_t i = r.begin; i < r.end; ++i)
      out[i].value = tessera::quarter::encode(static_cast<float>(in[i]), md);
    return true;
  }
  std::uint64_t cycleEstimate() const { return 20 + out.size(); }
};

/// A decoded quarter value as T: float and half round as usual; the integer types convert as
/// popops' other cast vertices do — int and unsigned int as the map's cast (truncation,
/// saturation; NaN gives INT_MAX or INT_MIN by its sign bit for int, 0 for unsigned int), bool
/// as x != 0 compared ordered (NaN gives false), the 8- and 16-bit types as Cast1D (truncation,
/// saturation, NaN to 0).
template <class T> T fromFloat(float f) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, poplar::half>) {
    return T(f);
  } else if constexpr (std::is_same_v<T, bool>) {
    return f < 0.0f || f > 0.0f; // an ordered comparison, as the map's: NaN gives false
  } else if constexpr (std::is_same_v<T, int>) {
    if (std::isnan(f)) // as the map's vector conversion: saturates by the NaN's sign bit
      return std::signbit(f) ? std::numeric_limits<int>::min() : std::numeric_limits<int>::max();
    if (f < -2147483648.0f)
      return std::numeric_limits<int>::min();
    return f >= 2147483648.0f ? std::numeric_limits<int>::max() : static_cast<int>(f);
  } else if constexpr (std::is_same_v<T, unsigned>) {
    if (!(f > 0.0f))
      return 0u;
    return f >= 4294967296.0f ? std::numeric_limits<unsigned>::max() : static_cast<unsigned>(f);
  } else {
    if (std::isnan(f))
      return T(0);
    constexpr float lo = static_cast<float>(std::numeric_limits<T>::min());
    constexpr float hi = static_cast<float>(std::numeric_limits<T>::max());
    return static_cast<T>(f <= lo ? lo : f >= hi ? hi : f);
  }
}

template <class T> class CastFromQuarter : public poplar::MultiVertex {
public:
  poplar::Input<poplar::Vector<poplar::quarter>> in;
  poplar::Output<poplar::Vector<T>> out;
  poplar::Input<poplar::MetadataType> metadata;

  bool compute(unsigned workerId) {
    const auto r = share(out.size(), workerId, numWorkers());
    const unsigned char md = *metadata;
    for (std::size_t i = r.begin; i < r.end; ++i)
      out[i] = fromFloat<T>(tessera::quarter::decode(in[i].value, md));
    return true;
  }
  std::uint64_t cycleEstimate() const { return 20 + out.size(); }
};

class CastQuarterToQuarter : public poplar::MultiVertex {
public:
  poplar::Input<poplar::Vector<poplar::quarter>> in;
  poplar::Output<poplar::Vector<poplar::quarter>> out;
  poplar::Input<poplar::MetadataType> inMetadata;
  poplar::Input<poplar::MetadataType> outMetadata;

  bool compute(unsigned workerId) {
    const auto r = share(out.size(), workerId, numWorkers());
    const unsigned char from = *inMetadata, to = *outMetadata;
    for (std::size_t i = r.begin; i < r.end; ++i)
      out[i].value = tessera::quarter::encode(tessera::quarter::decode(in[i].value, from), to);
    return true;
  }
  std::uint64_t cycleEstimate() const { return 20 + 2 * out.size(); }
};

template <class T> void registerCasts(const char *to, const char *from) {
  tessera::VertexTypeBuilder<CastToQuarter<T>>(to)
      .field("in", &CastToQuarter<T>::in)
      .field("out", &CastToQuarter<T>::out)
      .field("metadata", &CastToQuarter<T>::metadata)
      .add();
  tessera::VertexTypeBuilder<CastFromQuarter<T>>(from)
      .field("in", &CastFromQuarter<T>::in)
      .field("out", &CastFromQuarter<T>::out)
      .field("metadata", &CastFromQuarter<T>::metadata)
      .add();
}

} // namespace

void registerCastQuarterVertices() {
  registerCasts<float>("popops::CastToQuarter<float>", "popops::CastFromQuarter<float>");
  registerCasts<poplar::half>("popops::CastToQuarter<half>", "popops::CastFromQuarter<half>");
  registerCasts<int>("popops::CastToQuarter<int>", "popops::CastFromQuarter<int>");
  registerCasts<unsigned>("popops::CastToQuarter<unsigned int>",
                          "popops::CastFromQuarter<unsigned int>");
  registerCasts<bool>("popops::CastToQuarter<bool>", "popops::CastFromQuarter<bool>");
  registerCasts<char>("popops::CastToQuarter<char>", "popops::CastFromQuarter<char>");
  registerCasts<signed char>("popops::CastToQuarter<signed char>",
                             "popops::CastFromQuarter<signed char>");
  registerCasts<unsigned char>("popops::CastToQuarter<unsigned char>",
                               "popops::CastFromQuarter<unsigned char>");
  registerCasts<short>("popops::CastToQuarter<short>", "popops::CastFromQuarter<short>");
  registerCasts<unsigned short>("popops::CastToQuarter<unsigned short>",
                                "popops::CastFromQuarter<unsigned short>");
  tessera::VertexTypeBuilder<CastQuarterToQuarter>("popops::CastQuarterToQuarter")
      .field("in", &CastQuarterToQuarter::in)
      .field("out", &CastQuarterToQuarter::out)
      .field("inMetadata", &CastQuarterToQuarter::inMetadata)
      .field("outMetadata", &CastQuarterToQuarter::outMetadata)
      .add();
}

} // namespace tessera::codelets::popops
