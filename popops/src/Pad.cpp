// Padding is pure tensor plumbing: slices for negative padding, concatenation with a constant
// (or a broadcast scalar tensor, or views of the tensor itself) for positive padding. No compute
// set is added, as in PopLibs; the constant's elements are placed by the MappingMethod.
#include <popops/Pad.hpp>

#include <functional>
#include <string>

#include <poputil/Describe.hpp>
#include <poputil/exceptions.hpp>

namespace popops {

namespace {

using poputil::shapeString;

void checkPadding(const poplar::Tensor &t, const std::vector<std::ptrdiff_t> &paddingLower,
                  const std::vector<std::ptrdiff_t> &paddingUpper) {
  if (paddingLower.size() != t.rank())
    throw poputil::poplibs_error("popops::pad: paddingLower has " +
                                 std::to_string(paddingLower.size()) +
                                 " entries, expected one per dimension of t " +
                                 shapeString(t.shape()) + " (" + std::to_string(t.rank()) + ")");
  if (paddingUpper.size() != t.rank())
    throw poputil::poplibs_error("popops::pad: paddingUpper has " +
                                 std::to_string(paddingUpper.size()) +
                                 " entries, expected one per dimension of t " +
                                 shapeString(t.shape()) + " (" + std::to_string(t.rank()) + ")");
  for (unsigned d = 0; d < t.rank(); ++d) {
    const auto size = static_cast<std::ptrdiff_t>(t.dim(d));
    const std::ptrdiff_t lower = paddingLower[d], upper = paddingUpper[d];
    if (size + lower < 0 || size + upper < 0 || size + lower + upper < 0)
      throw poputil::poplibs_error("popops::pad: paddingLower[" + std::to_string(d) +
                                   "] = " + std::to_string(lower) + " and paddingUpper[" +
                                   std::to_string(d) + "] = " + std::to_string(upper) +
                                   " cut dimension " + std::to_string(d) + " of t " +
                                   shapeString(t.shape()) + " by more than its size");
  }
}

void checkDim(const poplar::Tensor &t, unsigned dim) {
  if (dim >= t.rank())
    throw poputil::poplibs_error("popops::pad: dim " + std::to_string(dim) +
                                 " is not a dimension of t " + shapeString(t.shape()) + " (rank " +
                                 std::to_string(t.rank()) + ")");
}

/// Padding vectors that pad only `dim`.
std::pair<std::vector<std::ptrdiff_t>, std::vector<std::ptrdiff_t>>
oneDimPadding(const poplar::Tensor &t, std::ptrdiff_t lower, std::ptrdiff_t upper, unsigned dim) {
  std::vector<std::ptrdiff_t> lo(t.rank(), 0), up(t.rank(), 0);
  lo[dim] = lower;
  up[dim] = upper;
  return {lo, up};
}

/// Makes the block of padding that goes next to `t` along `dim` (`amount` > 0 elements thick);
/// `atLower` says on which side.
using PaddingMaker = std::function<poplar::Tensor(const poplar::Tensor &t, unsigned dim,
                                                  std::size_t amount, bool atLower)>;

/// Applies the padding dimension by dimension, lower side then upper side, so that later
/// dimensions pad the already padded corners.
poplar::Tensor padDims(poplar::Tensor t, const std::vector<std::ptrdiff_t> &paddingLower,
                       const std::vector<std::ptrdiff_t> &paddingUpper,
                       const PaddingMaker &makePadding) {
  checkPadding(t, paddingLower, paddingUpper);
  for (unsigned d = 0; d < t.rank(); ++d) {
    const std::ptrdiff_t lower = paddingLower[d], upper = paddingUpper[d];
    if (lower < 0)
      t = t.slice(static_cast<std::size_t>(-lower), t.dim(d), d);
    else if (lower > 0)
      t = poplar::concat(makePadding(t, d, static_cast<std::size_t>(lower), true), t, d);
    if (upper < 0)
      t = t.slice(0, t.dim(d) - static_cast<std::size_t>(-upper), d);
    else if (upper > 0)
      t = poplar::concat(t, makePadding(t, d, static_cast<std::size_t>(upper), false), d);
  }
  return t;
}

/// `scalar` (one element) viewed with `shape`, every element being that one element.
poplar::Tensor broadcastScalar(const poplar::Tensor &scalar,
                               const std::vector<std::size_t> &shape) {
  poplar::Tensor b = scalar.flatten().reshape(std::vector<std::size_t>(shape.size(), 1));
  for (unsigned d = 0; d < shape.size(); ++d)
    b = b.broadcast(static_cast<unsigned>(shape[d]), d);
  return b;
}

void mapPadding(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &padding,
                unsigned dim, bool atLower, padding::MappingMethod method) {
  switch (method) {
  case padding::MappingMethod::NONE:
    return;
  case padding::MappingMethod::ZERO:
    graph.setTileMapping(padding, 0);
    return;
  case padding::MappingMethod::EDGE: {
    if (t.dim(dim) == 0)
      throw poputil::poplibs_error(
          "popops::pad: MappingMethod::EDGE places padding by the edge elements of t, but "
          "dimension " +
          std::to_string(dim) + " of t " + shapeString(t.shape()) + " is empty");
    if (padding.numElements() == 0)
      return;
    const poplar::Tensor edge =
        atLower ? t.slice(0, 1, dim) : t.slice(t.dim(dim) - 1, t.dim(dim), dim);
    const auto edgeMapping = graph.getTileMapping(edge);
    for (std::size_t k = 0; k < padding.dim(dim); ++k)
      graph.setTileMapping(padding.slice(k, k + 1, dim), edgeMapping);
    return;
  }
  }
}

template <class T>
poplar::Tensor padConstant(poplar::Graph &graph, const poplar::Tensor &t,
                           const std::vector<std::ptrdiff_t> &paddingLower,
                           const std::vector<std::ptrdiff_t> &paddingUpper, T val,
                           padding::MappingMethod mappingMethod) {
  const poplar::Type type = t.elementType();
  return padDims(t, paddingLower, paddingUpper,
                 [&](const poplar::Tensor &cur, unsigned dim, std::size_t amount, bool atLower) {
                   std::vector<std::size_t> shape = cur.shape();
                   shape[dim] = amount;
                   poplar::Tensor padding = graph.addConstant(type, shape, val, "pad");
                   mapPadding(graph, cur, padding, dim, atLower, mappingMethod);
                   return padding;
                 });
}

} // namespace

poplar::Tensor pad(poplar::Graph &graph, const poplar::Tensor &t,
                   const std::vector<std::ptrdiff_t> &paddingLower,
                   const std::vector<std::ptrdiff_t> &paddingUpper, float val,
                   padding::MappingMethod mappingMethod) {
  return padConstant(graph, t, paddingLower, paddingUpper, val, mappingMethod);
}

poplar::Tensor pad(poplar::Graph &graph, const poplar::Tensor &t,
                   const std::vector<std::ptrdiff_t> &paddingLower,
                   const std::vector<std::ptrdiff_t> &paddingUpper, int val,
                   padding::MappingMethod mappingMethod) {
  return padConstant(graph, t, paddingLower, paddingUpper, val, mappingMethod);
}

poplar::Tensor pad(poplar::Graph &, const poplar::Tensor &t,
                   const std::vector<std::ptrdiff_t> &paddingLower,
                   const std::vector<std::ptrdiff_t> &paddingUpper, const poplar::Tensor &val,
                   padding::MappingMethod) {
  if (val.numElements() != 1)
    throw poputil::poplibs_error("popops::pad: the padding value tensor val " +
                                 shapeString(val.shape()) + " must have exactly one element");
  if (val.elementType() != t.elementType())
    throw poputil::poplibs_error("popops::pad: the padding value tensor val is " +
                                 val.elementType().toString() + ", expected t's type " +
                                 t.elementType().toString());
  return padDims(t, paddingLower, paddingUpper,
                 [&](const poplar::Tensor &cur, unsigned dim, std::size_t amount, bool) {
                   std::vector<std::size_t> shape = cur.shape();
                   shape[dim] = amount;
                   return broadcastScalar(val, shape);
                 });
}

poplar::Tensor pad(poplar::Graph &graph, const poplar::Tensor &t, std::ptrdiff_t paddingLower,
                   std::ptrdiff_t paddingUpper, unsigned dim, float val,
                   padding::MappingMethod mappingMethod) {
  checkDim(t, dim);
  const auto [lo, up] = oneDimPadding(t, paddingLower, paddingUpper, dim);
  return pad(graph, t, lo, up, val, mappingMethod);
}

poplar::Tensor pad(poplar::Graph &graph, const poplar::Tensor &t, std::ptrdiff_t paddingLower,
                   std::ptrdiff_t paddingUpper, unsigned dim, int val,
                   padding::MappingMethod mappingMethod) {
  checkDim(t, dim);
  const auto [lo, up] = oneDimPadding(t, paddingLower, paddingUpper, dim);
  return pad(graph, t, lo, up, val, mappingMethod);
}

poplar::Tensor pad(poplar::Graph &graph, const poplar::Tensor &t, std::ptrdiff_t paddingLower,
                   std::ptrdiff_t paddingUpper, unsigned dim, const poplar::Tensor &val,
                   padding::MappingMethod mappingMethod) {
  checkDim(t, dim);
  const auto [lo, up] = oneDimPadding(t, paddingLower, paddingUpper, dim);
  return pad(graph, t, lo, up, val, mappingMethod);
}

poplar::Tensor pad(const poplar::Tensor &t, const std::vector<std::ptrdiff_t> &paddingLower,
                   const std::vector<std::ptrdiff_t> &paddingUpper, padding::Type type) {
  return padDims(
      t, paddingLower, paddingUpper,
      [&](const poplar::Tensor &cur, unsigned dim, std::size_t amount, bool atLower) {
        const std::size_t n = cur.dim(dim);
        if (type == padding::Type::EDGE) {
          if (n == 0)
            throw poputil::poplibs_error("popops::pad: EDGE padding of dimension " +
                                         std::to_string(dim) + " of t " + shapeString(cur.shape()) +
                                         ", which is empty");
          const poplar::Tensor edge = atLower ? cur.slice(0, 1, dim) : cur.slice(n - 1, n, dim);
          return edge.broadcast(static_cast<unsigned>(amount), dim);
        }
        if (amount + 1 > n)
          throw poputil::poplibs_error(
              "popops::pad: REFLECT padding of " + std::to_string(amount) + " on dimension " +
              std::to_string(dim) + " of t " + shapeString(cur.shape()) +
              " needs at most the dimension's size minus one (" +
              (n == 0 ? std::string("none") : std::to_string(n - 1)) + ")");
        return atLower ? cur.slice(1, amount + 1, dim).reverse(dim)
                       : cur.slice(n - 1 - amount, n - 1, dim).reverse(dim);
      });
}

poplar::Tensor pad(const poplar::Tensor &t, std::ptrdiff_t paddingLower,
                   std::ptrdiff_t paddingUpper, unsigned dim, padding::Type type) {
  checkDim(t, dim);
  const auto [lo, up] = oneDimPadding(t, paddingLower, paddingUpper, dim);
  return pad(t, lo, up, type);
}

} // namespace popops
