// Builds y = A·x in the style of Poplar's tutorial: the matrix is spread over tiles row by row,
// each row gets a DotProductVertex on its tile, and FIFOs move data to and from the host.
#pragma once

#include <cstddef>
#include <vector>

#include <poplar/Device.hpp>

namespace matvec {

/// Runs one matrix-vector product of the rows×cols matrix `a` (row-major) with `x` on
/// `device` and returns y. Uses `hostThreads` host threads (0: all cores).
std::vector<float> multiply(const poplar::Device &device, std::size_t rows, std::size_t cols,
                            const std::vector<float> &a, const std::vector<float> &x,
                            unsigned hostThreads = 0);

} // namespace matvec
