// QR factorisation by Householder reflections (experimental in PopLibs): A [M][N] (M ≥ N) =
// Q·R with Q [M][M] orthogonal and R [M][N] upper triangular. FLOAT only, as in PopLibs.
//
// Step k (k = 0 … N−1) builds the reflector H_k = I − 2·v·vᵀ that zeroes column k of A below
// the diagonal (one vertex; R's diagonal entry is −sign(A_kk)·‖column‖), then applies it to the
// remaining columns of A and to the rows of Q (Q ← Q·H_k) with vertices spread over the tiles,
// each holding a run of A's columns and Q's rows. So Q_out = Q_in·H_0·…·H_{N−1}: passing the
// identity as Q gives A = Q·R.
#pragma once

#include <array>
#include <cstddef>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace poplin {
namespace experimental {

/// {A [m][n], Q [m][m]} of `type` (FLOAT) laid out for QRFactorization(): the n columns of A
/// and the m rows of Q spread in runs over the tiles. Throws poputil::poplibs_error when m < n.
std::array<poplar::Tensor, 2>
createQRFactorizationMatrices(poplar::Graph &graph, const poplar::Type &type, const std::size_t m,
                              const std::size_t n, const poplar::DebugContext &debugContext);

/// Overwrites A [M][N] (M ≥ N) with R and Q [M][M] (the identity on entry) with Q such that the
/// original A = Q·R. Option `rowsPerIteration` (a positive integer, default 32) is accepted as a
/// hint and has no effect. Shape and type errors throw poputil::poplibs_error naming the tensor.
void QRFactorization(poplar::Graph &graph, poplar::Tensor &A, poplar::Tensor &Q,
                     poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                     const poplar::OptionFlags &options = {});

} // namespace experimental
} // namespace poplin
