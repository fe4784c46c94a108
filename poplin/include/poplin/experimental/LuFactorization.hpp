// LU factorisation without pivoting (experimental in PopLibs): A = L·U for A [M][N], with L
// [M][M] unit lower triangular and U [M][N] upper trapezoidal, both FLOAT whatever A's type
// (a HALF input is converted first).
//
// No rows are exchanged, as in PopLibs, so the factorisation exists and is accurate only for
// matrices whose leading principal minors are safely non-zero (e.g. diagonally dominant ones);
// a zero pivot gives inf/NaN entries. Blocked: each diagonal block is factorised (and its two
// triangles inverted) by one vertex on one tile, the block row and column are solved and the
// trailing matrix updated with poplin::matMul products planned over the tiles. When M > N the
// columns of L from N on are those of the identity.
#pragma once

#include <utility>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace poplin {
namespace experimental {

/// {L, U} with input = L·U for a matrix `input` [M][N] of FLOAT or HALF; throws
/// poputil::poplibs_error naming `input` when it is not a matrix of a floating-point type.
std::pair<poplar::Tensor, poplar::Tensor>
LUFactorization(poplar::Graph &graph, poplar::Tensor &input, poplar::program::Sequence &seq,
                const poplar::DebugContext &debugContext = {});

} // namespace experimental
} // namespace poplin
