// The size and kind of a host C++ type, as Poplar describes the values a program hands it
// (popops::expr::Const keeps one for its value: Const::getTypeTraits()).
#pragma once

#include <cstddef>
#include <type_traits>

namespace poplar {

/// What a host type is: its size and alignment in bytes and whether it is an integer or a
/// floating-point type (and signed).
struct TypeTraits {
  std::size_t size = 0;
  std::size_t align = 0;
  bool isIntegral = false;
  bool isFloat = false;
  bool isSigned = false;

  /// The traits of T (an arithmetic type).
  template <typename T> static TypeTraits make() {
    static_assert(std::is_arithmetic<T>::value, "TypeTraits::make takes an arithmetic type");
    TypeTraits t;
    t.size = sizeof(T);
    t.align = alignof(T);
    t.isIntegral = std::is_integral<T>::value;
    t.isFloat = std::is_floating_point<T>::value;
    t.isSigned = std::is_signed<T>::value;
    return t;
  }

  /// Whether T is a plain value type a constant can hold (bool, an integer or a float type).
  template <typename T> static constexpr bool isSimpleType() {
    return std::is_arithmetic<T>::value;
  }
};

} // namespace poplar
