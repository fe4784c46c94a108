// The total order popops' sort and topK vertices use: numeric order, with NaN after every
// number (so results are defined for any float input).
#pragma once

#include <cmath>
#include <type_traits>

#include <poplar/Half.hpp>

namespace tessera::codelets::popops {

template <class T> bool keyLess(const T &a, const T &b) {
  if constexpr (std::is_same_v<T, poplar::half> || std::is_floating_point_v<T>) {
    const float x = float(a), y = float(b);
    if (std::isnan(x))
      return false;
    if (std::isnan(y))
      return true;
    return x < y;
  } else {
    return a < b;
  }
}

} // namespace tessera::codelets::popops
