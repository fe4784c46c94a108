// Reference for popops/Pad.hpp: constant, edge and reflect padding of a row-major array.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <vector>

namespace reference {

enum class PadMode { Constant, Edge, Reflect };

/// A row-major array with its shape.
struct Array {
  std::vector<std::size_t> shape;
  std::vector<double> values;
};

/// Pads (or, for negative amounts, cuts) `in` dimension by dimension, lower side first then the
/// upper side, each step working on the result of the previous one (so corners are padding).
/// Along one dimension of current size n, a new element at signed position j (j < 0 before
/// the start, j >= n after the end) takes:
///   Constant: `value`;
///   Edge:     element clamp(j, 0, n-1) (the nearest edge element);
///   Reflect:  element -j before the start, 2(n-1)-j after the end (mirror about the edge
///             element, which is not repeated; the amount must be at most n-1).
inline Array pad(const Array &in, const std::vector<std::ptrdiff_t> &lower,
                 const std::vector<std::ptrdiff_t> &upper, PadMode mode, double value = 0) {
  Array cur = in;
  for (std::size_t d = 0; d < cur.shape.size(); ++d) {
    for (int side = 0; side < 2; ++side) {
      const std::ptrdiff_t amount = side == 0 ? lower[d] : upper[d];
      if (amount == 0)
        continue;
      const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(cur.shape[d]);
      const std::ptrdiff_t m = n + amount;
      // First new index i maps to old index i + shift (or padding when out of [0, n)).
      const std::ptrdiff_t shift = side == 0 ? -amount : 0;
      std::size_t outer = 1, inner = 1;
      for (std::size_t k = 0; k < d; ++k)
        outer *= cur.shape[k];
      for (std::size_t k = d + 1; k < cur.shape.size(); ++k)
        inner *= cur.shape[k];
      Array next;
      next.shape = cur.shape;
      next.shape[d] = static_cast<std::size_t>(m);
      next.values.resize(outer * static_cast<std::size_t>(m) * inner);
      for (std::size_t o = 0; o < outer; ++o)
        for (std::ptrdiff_t i = 0; i < m; ++i)
          for (std::size_t r = 0; r < inner; ++r) {
            std::ptrdiff_t j = i + shift;
            double v;
            if (j >= 0 && j < n) {
              v = cur.values[(o * n + j) * inner + r];
            } else if (mode == PadMode::Constant) {
              v = value;
            } else {
              if (mode == PadMode::Edge)
                j = j < 0 ? 0 : n - 1;
              else
                j = j < 0 ? -j : 2 * (n - 1) - j;
              if (j < 0 || j >= n)
                throw std::out_of_range("reference::pad: padding beyond what the mode allows");
              v = cur.values[(o * n + j) * inner + r];
            }
            next.values[(o * m + i) * inner + r] = v;
          }
      cur = next;
    }
  }
  return cur;
}

} // namespace reference
