// Reference for popops/Rearrange.hpp. Regrouping changes only the memory layout, so its
// reference is the identity on values; partialTranspose swaps the two innermost dimensions.
#pragma once

#include <cstddef>
#include <vector>

namespace reference {

/// `in` viewed as [matrices][rows][cols] (row-major) to [matrices][cols][rows].
inline std::vector<double> partialTranspose(const std::vector<double> &in, std::size_t rows,
                                            std::size_t cols) {
  std::vector<double> out(in.size());
  const std::size_t matrices = (rows != 0 && cols != 0) ? in.size() / (rows * cols) : 0;
  for (std::size_t m = 0; m < matrices; ++m)
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < cols; ++c)
        out[(m * cols + c) * rows + r] = in[(m * rows + r) * cols + c];
  return out;
}

/// regroupTensor / regroupIfBeneficial / regroupIfPossible: the same values in the same
/// (logical) order, whatever the memory layout.
inline std::vector<double> regroup(const std::vector<double> &in) { return in; }

} // namespace reference
