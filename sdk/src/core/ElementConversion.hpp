// Converting host values to device element types (and back), including IEEE half.
#pragma once

#include <cstddef>
#include <cstdint>

#include <poplar/Type.hpp>

namespace poplar::core {

std::uint16_t floatToHalf(float f);
float halfToFloat(std::uint16_t h);

/// Converts `count` elements of `srcType` at `src` to `dstType` at `dst` (C++ conversion rules;
/// HALF rounds to nearest even). `src` and `dst` must not overlap.
void convertElements(Type srcType, const void *src, Type dstType, void *dst, std::size_t count);

/// Reads element `i` of `type` at `base` as a double (for predicates and printing).
double elementAsDouble(Type type, const void *base, std::size_t i);

} // namespace poplar::core
