// The shape of one convolution block as its vertex sees it: per spatial dimension, the
// kernel, output and input extents and the index table [kernel][output] → input (−1: zero).
#pragma once

#include <array>
#include <cstddef>

namespace tessera::codelets::poplin::conv {

/// Shape of one block's index tables, padded to three spatial dimensions. Missing dimensions
/// are leading ones of size 1 with the table {0}, so the innermost loop always runs along the
/// last real dimension.
struct BlockGeometry {
  std::array<unsigned, 3> kernel{1, 1, 1}, outSize{1, 1, 1}, inSize{1, 1, 1};
  std::array<const int *, 3> table{};
  static constexpr int kZero[1] = {0};

  BlockGeometry(unsigned dims, const int *indices, std::array<unsigned, 3> k,
                std::array<unsigned, 3> o, std::array<unsigned, 3> i) {
    const unsigned first = 3 - dims;
    for (unsigned s = 0; s < first; ++s)
      table[s] = kZero;
    for (unsigned d = 0; d < dims; ++d) {
      kernel[first + d] = k[d];
      outSize[first + d] = o[d];
      inSize[first + d] = i[d];
      table[first + d] = indices;
      indices += std::size_t(k[d]) * o[d];
    }
  }
  std::size_t kernelElements() const { return std::size_t(kernel[0]) * kernel[1] * kernel[2]; }
  std::size_t outPositions() const { return std::size_t(outSize[0]) * outSize[1] * outSize[2]; }
  std::size_t inPositions() const { return std::size_t(inSize[0]) * inSize[1] * inSize[2]; }
  /// A 1×1 kernel reading input position p for output position p in every dimension.
  bool isIdentity() const {
    for (unsigned d = 0; d < 3; ++d) {
      if (kernel[d] != 1 || inSize[d] != outSize[d])
        return false;
      for (unsigned x = 0; x < outSize[d]; ++x)
        if (table[d][x] != int(x))
          return false;
    }
    return true;
  }
};

} // namespace tessera::codelets::poplin::conv
