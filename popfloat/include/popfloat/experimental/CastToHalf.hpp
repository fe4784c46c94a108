// Host-side conversions between float and the IPU's half, as PopLibs' popfloat has them.
//
// They differ from a plain IEEE conversion (poplar::copyFloatToDeviceHalf) in one respect, the
// IPU's: a finite float too large for a half does not become infinity. With `enNanoo` off it
// saturates to the largest half of its sign (±65504); with `enNanoo` ("NaN on overflow") on it
// becomes a NaN. Everything else rounds to the nearest half, ties to even; infinities stay
// infinities and NaNs stay NaNs (quiet or signalling as they were).
#pragma once

#include <cstdint>

namespace popfloat {
namespace experimental {

/// The 16-bit pattern of the half nearest to `value` (see above for overflow).
std::uint16_t singleToHalf(float value, bool enNanoo = false);

/// The float equal to the half with 16-bit pattern `ihalf` (exact).
float halfToSingle(std::uint16_t ihalf);

} // namespace experimental
} // namespace popfloat
