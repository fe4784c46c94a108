// Cholesky factorisation of symmetric positive definite matrices: A = L·Lᵀ (lower) or A = Uᵀ·U
// (upper), for one matrix [N][N] or a batch [..., N, N].
//
// The factorisation is blocked: each `blockSize`×`blockSize` diagonal block is factorised (and
// its triangle inverted) by one vertex on one tile, and the panel below it and the trailing
// matrix are updated with poplin::matMul products planned over the tiles. Only the lower
// (`lower = true`) or upper triangle of the input is read; the other triangle of the result is
// zero. A matrix that is not positive definite gives NaN entries (no exception: the values are
// only known when the program runs).
//
// Options: `blockSize` (a positive integer, default 8; a hint, capped at N), plus every matMul
// option (see poplin/MatMul.hpp). Unknown options throw poplar::invalid_option; shape and type
// errors throw poputil::poplibs_error naming the tensor.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplin/MatMul.hpp>

namespace poplin {

/// The matrix multiplies cholesky() runs for this input (type, [..., N, N]), so they can be
/// planned ahead (see preplan in MatMul.hpp).
std::vector<std::pair<MatMulParams, poplar::OptionFlags>>
getCholeskyMatMulPrePlanParameters(const poplar::Type &type, const std::vector<std::size_t> &shape,
                                   bool lower, poplar::OptionFlags options);

/// A new tensor of `shape` ([..., N, N], FLOAT or HALF) laid out for cholesky(): each
/// blockSize×blockSize block on one tile, blocks round-robin over the tiles.
poplar::Tensor createCholeskyInput(poplar::Graph &graph, const poplar::Type &type,
                                   const std::vector<std::size_t> &shape, bool lower,
                                   const poplar::DebugContext &debugContext,
                                   const poplar::OptionFlags &options = {},
                                   PlanningCache *cache = nullptr);

/// The Cholesky factor of `a` ([..., N, N]) as a new tensor of a's shape: lower triangular L with
/// A = L·Lᵀ when `lower`, else upper triangular U with A = Uᵀ·U.
poplar::Tensor cholesky(poplar::Graph &graph, const poplar::Tensor &a, bool lower,
                        poplar::program::Sequence &prog,
                        const poplar::DebugContext &debugContext = {},
                        poplar::OptionFlags options = {}, PlanningCache *cache = nullptr);

/// As cholesky(), writing the factor over `a`.
void choleskyInPlace(poplar::Graph &graph, const poplar::Tensor &a, bool lower,
                     poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                     poplar::OptionFlags options = {}, PlanningCache *cache = nullptr);

} // namespace poplin
