// The `quarter` element type as codelets and host code compute with it, and its metadata as
// codelets read it: a vertex field `Input<Vector<quarter>>` connects to a QUARTER tensor, and
// `Input<MetadataType>` to its QUARTER_METADATA tensor (see <poplar/Quarter.hpp>).
#pragma once

#include <cstdint>

#include <poplar/Half.hpp>
#include <poplar/Type.hpp>
#include <tessera/QuarterCodec.hpp>

namespace poplar {

/// One QUARTER element: its byte. What the byte means depends on a quarter_metadata.
struct quarter {
  unsigned char value = 0;
  quarter() = default;
  quarter(unsigned x) { value = static_cast<unsigned char>(x); }
};

/// Unpacked metadata: the format and the scale (d = q * 2^scale).
typedef struct quarter_metadata {
  enum format { f143, f152 } fmt = f152;
  signed char scale = 0;
} quarter_metadata;

/// The element type of a QUARTER_METADATA tensor as a vertex field sees it.
typedef unsigned char MetadataType;

/// Unpacks a QUARTER_METADATA byte (bit 7: F143; bits 0-5: the scale, two's complement).
inline quarter_metadata unpackMetadata(const MetadataType *in) {
  quarter_metadata out;
  out.fmt = tessera::quarter::isF143(*in) ? quarter_metadata::f143 : quarter_metadata::f152;
  out.scale = static_cast<signed char>(tessera::quarter::scaleOf(*in));
  return out;
}

namespace detail {
inline std::uint8_t packMetadata(quarter_metadata md) {
  return static_cast<std::uint8_t>((md.fmt == quarter_metadata::f143 ? 0x80 : 0) |
                                   (static_cast<unsigned char>(md.scale) & 0x3f));
}
} // namespace detail

/// q * 2^scale, exactly; NaN for the NaN byte.
inline float quarterToFloat(quarter q, quarter_metadata md) {
  return tessera::quarter::decode(q.value, detail::packMetadata(md));
}
/// As quarterToFloat, rounded to half (ties to even; beyond half's range, infinity).
inline half quarterToHalf(quarter q, quarter_metadata md) { return half(quarterToFloat(q, md)); }
/// f * 2^-scale rounded to the nearest quarter, ties to even, saturating beyond the largest;
/// NaN and infinities give NaN.
inline quarter floatToQuarter(float f, quarter_metadata md) {
  return quarter(tessera::quarter::encode(f, detail::packMetadata(md)));
}
inline quarter halfToQuarter(half h, quarter_metadata md) {
  return floatToQuarter(static_cast<float>(h), md);
}

inline float toFloat(quarter q, quarter_metadata md) { return quarterToFloat(q, md); }
inline half toHalf(quarter q, quarter_metadata md) { return quarterToHalf(q, md); }
template <typename T> inline quarter toQuarter(T val, quarter_metadata md) {
  return floatToQuarter(static_cast<float>(val), md);
}

template <> struct equivalent_device_type<quarter> { static constexpr Type value = QUARTER; };

} // namespace poplar
