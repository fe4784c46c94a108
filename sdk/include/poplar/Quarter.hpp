// QUARTER, Poplar's 8-bit float, and its metadata.
//
// A QUARTER element is one byte whose meaning is given at run time by a metadata value: the
// format (how many bits of exponent and mantissa) and a signed power-of-two scale. One metadata
// tensor (of type QUARTER_METADATA, one byte) usually describes many QUARTER elements. With
// scale s, a float d and its quarter q relate as
//     d = q * 2^s        q = d * 2^-s
// Both formats have subnormals, no infinities and a single NaN (the byte 0x80); conversions to
// quarter round to nearest, ties to even.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include <poplar/exceptions.hpp>

namespace poplar {

/// The format and scale of QUARTER data, packed in one byte as the device stores it in a
/// QUARTER_METADATA tensor: bit 7 set for F143, clear for F152; bits 0-5 the scale as a 6-bit
/// two's complement number (-32 … 31).
class QuarterMetadata {
public:
  /// Format specification for 8-bit floats.
  enum class Format {
    F143, ///< 1 bit for sign, 4 bits for exponent, 3 bits for mantissa (largest 240)
    F152, ///< 1 bit for sign, 5 bits for exponent, 2 bits for mantissa (largest 57344)
  };

  QuarterMetadata() = default;
  /// Throws poplar::index_error naming the scale when it does not fit in 6 bits (-32 … 31).
  inline explicit QuarterMetadata(const Format fmt, const signed char scale) {
    if (scale < kMinScale || scale > kMaxScale)
      throw index_error("QuarterMetadata: scale " + std::to_string(int(scale)) +
                        " is out of range; it must lie in [" + std::to_string(kMinScale) + ", " +
                        std::to_string(kMaxScale) + "]");
    value = static_cast<unsigned char>((fmt == Format::F143 ? kF143Bit : 0) |
                                       (static_cast<unsigned char>(scale) & kScaleMask));
  }
  /// From the packed byte (as read from a QUARTER_METADATA tensor).
  inline explicit QuarterMetadata(unsigned char packed) : value(packed) {}
  inline QuarterMetadata(const QuarterMetadata &other) = default;
  QuarterMetadata &operator=(const QuarterMetadata &other) = default;

  bool operator==(const QuarterMetadata other) const { return value == other.value; }
  bool operator!=(const QuarterMetadata other) const { return value != other.value; }

  /// The packed byte.
  inline unsigned char getBinary() const { return value; }
  inline unsigned char &data() { return value; }
  inline const unsigned char &data() const { return value; }
  signed char getScale() const {
    const int raw = value & kScaleMask;
    return static_cast<signed char>(raw >= 32 ? raw - 64 : raw);
  }
  Format getFormat() const { return (value & kF143Bit) ? Format::F143 : Format::F152; }

private:
  static constexpr int kMinScale = -32;
  static constexpr int kMaxScale = 31;
  static constexpr unsigned char kF143Bit = 0x80;
  static constexpr unsigned char kScaleMask = 0x3f;
  unsigned char value = 0;
};

inline std::ostream &operator<<(std::ostream &os, QuarterMetadata::Format f) {
  return os << (f == QuarterMetadata::Format::F143 ? "F143" : "F152");
}

/// Prints "F143 scale -3".
inline std::ostream &operator<<(std::ostream &os, const QuarterMetadata &md) {
  return os << md.getFormat() << " scale " << int(md.getScale());
}

} // namespace poplar
