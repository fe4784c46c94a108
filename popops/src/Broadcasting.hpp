// NumPy broadcasting for the element-wise paths (the fused map and the 64-bit integer map):
// the shape two operands broadcast to, and a tensor viewed at a broadcast shape.
#pragma once

#include <string>
#include <vector>

#include <poplar/Tensor.hpp>

namespace popops::detail {

/// The NumPy broadcast of shapes `a` and `b`; throws poplibs_error naming both shapes, `what`
/// (the operands) and `context` (the calling function) when they cannot broadcast.
std::vector<std::size_t> broadcastShapes(const std::vector<std::size_t> &a,
                                         const std::vector<std::size_t> &b, const std::string &what,
                                         const std::string &context);

/// `t` viewed with `shape` by NumPy broadcasting: leading 1s added, size-1 dimensions repeated
/// (no data is copied).
poplar::Tensor broadcastTo(poplar::Tensor t, const std::vector<std::size_t> &shape);

} // namespace popops::detail
