#include <popfloat/experimental/CastToHalf.hpp>

#include <cmath>
#include <cstring>

#include <poplar/Half.hpp>

namespace popfloat {
namespace experimental {

namespace {
constexpr std::uint16_t kSignBit = 0x8000;
constexpr std::uint16_t kLargestHalf = 0x7bff; // 65504
constexpr std::uint16_t kQuietNaN = 0x7e00;
} // namespace

std::uint16_t singleToHalf(float value, bool enNanoo) {
  if (std::isnan(value)) {
    // Keep quiet/signalling: the top fraction bit, and a non-zero fraction either way.
    std::uint32_t bits;
    std::memcpy(&bits, &value, 4);
    const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & kSignBit);
    const bool quiet = (bits & 0x00400000u) != 0;
    std::uint16_t fraction = static_cast<std::uint16_t>((bits >> 13) & 0x3ffu);
    fraction = quiet ? static_cast<std::uint16_t>(fraction | 0x200u)
                     : static_cast<std::uint16_t>(fraction & ~0x200u);
    if (fraction == 0)
      fraction = 1;
    return static_cast<std::uint16_t>(sign | 0x7c00u | fraction);
  }
  const std::uint16_t rounded = poplar::floatToHalfBits(value);
  const bool becameInfinite = (rounded & 0x7fffu) == 0x7c00u && !std::isinf(value);
  if (!becameInfinite)
    return rounded;
  const std::uint16_t sign = static_cast<std::uint16_t>(rounded & kSignBit);
  return static_cast<std::uint16_t>(sign | (enNanoo ? kQuietNaN : kLargestHalf));
}

float halfToSingle(std::uint16_t ihalf) { return poplar::halfBitsToFloat(ihalf); }

} // namespace experimental
} // namespace popfloat
