// NumPy-style shape matching for element-wise operations: the operands' ranks are made equal by
// adding outer dimensions of size 1, then each dimension of size 1 is broadcast (a view that
// repeats it, no copy) to the other operand's size.
//
// PopLibs 3.x's poputil/Broadcast.hpp, with its names and signatures. (Older PopLibs releases
// also had `extendDimensionsToMatch` and `detectVectorBroadcastOperands` here; 3.x does not,
// and `createBroadcastOperand` lives in poputil/TileMapping.hpp.)
#pragma once

#include <cstddef>
#include <vector>

#include <poplar/Tensor.hpp>

namespace poputil {

/// Adds outermost dimensions of size 1 to whichever of `a` and `b` has the lower rank until
/// both have the same rank. Sizes are not compared.
void expandToMatchRanks(poplar::Tensor &a, poplar::Tensor &b);

/// Replaces `a` by a view of shape `shape`: outer dimensions of size 1 are added up to
/// shape's rank, and every dimension of size 1 is broadcast to shape's size there. Throws
/// poplibs_error naming both shapes if a has more dimensions than `shape` or a dimension is
/// neither 1 nor shape's size.
void broadcastToMatch(poplar::Tensor &a, const std::vector<std::size_t> &shape);

/// Replaces `a` and `b` by views of their common NumPy broadcast shape (the larger rank; in
/// each dimension the size that is not 1). Throws poplibs_error naming both shapes if some
/// dimension has two different sizes, neither of them 1.
void broadcastToMatch(poplar::Tensor &a, poplar::Tensor &b);

/// As above for three tensors: all three become views of their common broadcast shape.
void broadcastToMatch(poplar::Tensor &a, poplar::Tensor &b, poplar::Tensor &c);

/// Whether broadcastToMatch(a, b) would succeed (it never throws).
bool canBroadcastToMatch(const poplar::Tensor &a, const poplar::Tensor &b);

} // namespace poputil
