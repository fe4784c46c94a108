// The floating-point behaviour a program sets (<poplar/CSRFunctions.hpp>) as the bits Tessera
// keeps per replica and stores in the tensors getAndModifyFloatingPointBehaviour returns.
#pragma once

#include <cstdint>

namespace poplar::core {

inline constexpr std::uint32_t kFloatInv = 1u << 0;   ///< trap invalid operations
inline constexpr std::uint32_t kFloatDiv0 = 1u << 1;  ///< trap division by zero
inline constexpr std::uint32_t kFloatOflo = 1u << 2;  ///< trap overflow
inline constexpr std::uint32_t kFloatEsr = 1u << 3;   ///< stochastic rounding (not emulated)
inline constexpr std::uint32_t kFloatNanoo = 1u << 4; ///< NaN on overflow (recorded only)
inline constexpr std::uint32_t kFloatAll = 0x1f;

} // namespace poplar::core
