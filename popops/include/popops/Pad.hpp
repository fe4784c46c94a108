// Padding a tensor: with a constant (new elements), or numpy-style by repeating the edge or
// mirroring the tensor (views of existing elements). Negative padding removes elements.
#pragma once

#include <cstddef>
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popops {

namespace padding {

/// How the numpy-style `pad` overloads (those without a graph) fill the new elements.
enum class Type {
  /// Every new element copies the nearest element of the unpadded tensor, which lies on its
  /// edge ([a b c] padded by 2 at both ends is [a a a b c c c]).
  EDGE,
  /// The tensor mirrored about its edge element, the edge itself not repeated
  /// ([a b c] padded by 2 at both ends is [c b a b c b a]). Padding a dimension by more than
  /// its size minus one throws.
  REFLECT
};

/// Where the constant padding elements a `pad` with a graph creates are placed.
enum class MappingMethod {
  /// Left unmapped: the caller maps them.
  NONE,
  /// All on tile 0.
  ZERO,
  /// Each on the tile of the edge element nearest to it (so the padded tensor stays spread as
  /// the original was). The padded tensor must be non-empty and completely mapped.
  EDGE
};

} // namespace padding

/// `t` with `paddingLower[d]` elements equal to `val` added before and `paddingUpper[d]` after
/// dimension d, for every dimension. Negative padding removes that many elements instead.
/// Dimensions are padded in order, so corner elements are padding too. The padding is a new
/// constant of `t`'s type placed by `mappingMethod`; the result is a view (no program runs).
/// Throws poputil::poplibs_error when a padding vector's size is not `t`'s rank or when a
/// dimension would be cut by more than its size.
poplar::Tensor pad(poplar::Graph &graph, const poplar::Tensor &t,
                   const std::vector<std::ptrdiff_t> &paddingLower,
                   const std::vector<std::ptrdiff_t> &paddingUpper, float val = 0.0f,
                   padding::MappingMethod mappingMethod = padding::MappingMethod::ZERO);

/// As above with an integer padding value (exact for INT and UNSIGNED_INT tensors).
poplar::Tensor pad(poplar::Graph &graph, const poplar::Tensor &t,
                   const std::vector<std::ptrdiff_t> &paddingLower,
                   const std::vector<std::ptrdiff_t> &paddingUpper, int val,
                   padding::MappingMethod mappingMethod = padding::MappingMethod::ZERO);

/// As above, the padding being the single element of the tensor `val` (of `t`'s type),
/// broadcast: no new elements are created, so `mappingMethod` has nothing to place. Throws
/// poputil::poplibs_error naming `val` when it has more than one element or another type.
poplar::Tensor pad(poplar::Graph &graph, const poplar::Tensor &t,
                   const std::vector<std::ptrdiff_t> &paddingLower,
                   const std::vector<std::ptrdiff_t> &paddingUpper, const poplar::Tensor &val,
                   padding::MappingMethod mappingMethod = padding::MappingMethod::ZERO);

/// Constant padding of the single dimension `dim` (the others untouched). Throws
/// poputil::poplibs_error when `dim` is not below `t`'s rank.
poplar::Tensor pad(poplar::Graph &graph, const poplar::Tensor &t, std::ptrdiff_t paddingLower,
                   std::ptrdiff_t paddingUpper, unsigned dim, float val = 0.0f,
                   padding::MappingMethod mappingMethod = padding::MappingMethod::ZERO);
poplar::Tensor pad(poplar::Graph &graph, const poplar::Tensor &t, std::ptrdiff_t paddingLower,
                   std::ptrdiff_t paddingUpper, unsigned dim, int val,
                   padding::MappingMethod mappingMethod = padding::MappingMethod::ZERO);
poplar::Tensor pad(poplar::Graph &graph, const poplar::Tensor &t, std::ptrdiff_t paddingLower,
                   std::ptrdiff_t paddingUpper, unsigned dim, const poplar::Tensor &val,
                   padding::MappingMethod mappingMethod = padding::MappingMethod::ZERO);

/// `t` padded numpy-style (EDGE or REFLECT) in every dimension: the result is a view made of
/// `t`'s own elements, so no graph is needed. Negative padding removes elements. Throws
/// poputil::poplibs_error when the sizes do not match the rank, when EDGE pads an empty
/// dimension, or when REFLECT pads a dimension by more than its size minus one.
poplar::Tensor pad(const poplar::Tensor &t, const std::vector<std::ptrdiff_t> &paddingLower,
                   const std::vector<std::ptrdiff_t> &paddingUpper, padding::Type type);

/// Numpy-style padding of the single dimension `dim`.
poplar::Tensor pad(const poplar::Tensor &t, std::ptrdiff_t paddingLower,
                   std::ptrdiff_t paddingUpper, unsigned dim, padding::Type type);

} // namespace popops
