// Shared pieces of poplin's blocked dense linear algebra (Cholesky, TriangularSolve, LU):
// option splitting, batch views, and the compute sets of the on-tile diagonal-block kernels
// (codelets/poplin/LinalgVertices.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace poplin::detail {

/// `blockSize` (the linear-algebra option) taken out of `options`; the rest are matMul's options,
/// checked here so a bad one fails even when no multiply is needed.
struct LinalgOptions {
  std::size_t blockSize = 0;
  poplar::OptionFlags matmul;
};
LinalgOptions parseLinalgOptions(const std::string &fn, const poplar::OptionFlags &options,
                                 std::size_t defaultBlockSize);

/// Throws poputil::poplibs_error unless `shape` is [..., N, N] (named `what` in the message).
void checkSquare(const std::string &fn, const std::string &what,
                 const std::vector<std::size_t> &shape);
/// Throws unless `type` is FLOAT or HALF.
void checkFloatingPoint(const std::string &fn, const std::string &what, const poplar::Type &type);

/// [..., R, C] as [G][R][C] (G = product of the leading dimensions, 1 for a matrix).
poplar::Tensor grouped(const poplar::Tensor &t);
std::vector<std::size_t> groupedShape(const std::vector<std::size_t> &shape);

/// A tile for the `index`-th small piece of work, spread round-robin over the target.
unsigned spreadTile(const poplar::Graph &graph, std::size_t index);

/// Zeroes the unused triangle of every matrix of `t` ([G][R][N], any view; the diagonal is
/// i == j, so a rectangular matrix keeps its upper or lower trapezoid) in place, with
/// ones on the diagonal when `unitDiagonal`; rows spread over the tiles.
void maskInPlace(poplar::Graph &graph, const poplar::Tensor &t, bool lower, bool unitDiagonal,
                 poplar::program::Sequence &prog, const std::string &name);

/// As maskInPlace, reading `src` and writing `dst` (same shape).
void maskInto(poplar::Graph &graph, const poplar::Tensor &src, const poplar::Tensor &dst,
              bool lower, bool unitDiagonal, poplar::program::Sequence &prog,
              const std::string &name);

/// One compute set: for each [G][b][b] diagonal block in `blocks`, a new [G][b][b] tensor
/// holding the inverse of its lower (or upper) triangle.
std::vector<poplar::Tensor>
triangularInverses(poplar::Graph &graph, const std::vector<poplar::Tensor> &blocks, bool lower,
                   bool unitDiagonal, poplar::program::Sequence &prog, const std::string &name);

/// A new [G][R][C] tensor spread linearly over the tiles.
poplar::Tensor linearTensor(poplar::Graph &graph, const poplar::Type &type,
                            const std::vector<std::size_t> &shape, const std::string &name);

} // namespace poplin::detail
