// Solving linear systems whose coefficient matrix is triangular: A·X = B (`leftSide`) or
// X·A = B, for A [..., N, N] and B [..., N, K] (left side) or [..., K, N] (right side), with
// equal leading (batch) dimensions.
//
// Only the lower (`lower = true`) or upper triangle of A is read; with `unitDiagonal` the
// diagonal is taken as ones and not read either. The solve is blocked: the diagonal blocks of A
// are inverted on-tile (one vertex per block, all in one compute set), then the block rows of X
// are found in order with poplin::matMul products planned over the tiles:
// X_k = A_kk⁻¹ · (B_k − Σ_{j before k} A_kj · X_j).
//
// Options: `blockSize` (a positive integer, default 64; a hint), plus every matMul option (see
// poplin/MatMul.hpp). Unknown options throw poplar::invalid_option; shape and type errors throw
// poputil::poplibs_error naming the tensor.
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

/// A new tensor for A (shape `aShape`, type `inputType`) mapped over the tiles for
/// triangularSolve() with a right-hand side of `bShape`.
poplar::Tensor createTriangularSolveInputLHS(poplar::Graph &graph, const poplar::Type &inputType,
                                             const poplar::Type &outputType,
                                             const std::vector<std::size_t> &aShape,
                                             const std::vector<std::size_t> &bShape, bool leftSide,
                                             const poplar::DebugContext &debugContext,
                                             const poplar::OptionFlags &options = {},
                                             matmul::PlanningCache *cache = nullptr);

/// Deprecated form with the block size as an argument (same as the option `blockSize`).
poplar::Tensor createTriangularSolveInputLHS(
    poplar::Graph &graph, const poplar::Type &inputType, const poplar::Type &outputType,
    const std::vector<std::size_t> &aShape, const std::vector<std::size_t> &bShape, bool leftSide,
    std::size_t blockSize, const poplar::DebugContext &debugContext,
    poplar::OptionFlags options = {}, matmul::PlanningCache *cache = nullptr);

/// A new tensor for B (shape `bShape`) mapped over the tiles for triangularSolve().
poplar::Tensor createTriangularSolveInputRHS(poplar::Graph &graph, const poplar::Type &inputType,
                                             const poplar::Type &outputType,
                                             const std::vector<std::size_t> &aShape,
                                             const std::vector<std::size_t> &bShape, bool leftSide,
                                             const poplar::DebugContext &debugContext,
                                             const poplar::OptionFlags &options = {},
                                             matmul::PlanningCache *cache = nullptr);

/// Deprecated form with the block size as an argument.
poplar::Tensor createTriangularSolveInputRHS(
    poplar::Graph &graph, const poplar::Type &inputType, const poplar::Type &outputType,
    const std::vector<std::size_t> &aShape, const std::vector<std::size_t> &bShape, bool leftSide,
    std::size_t blockSize, const poplar::DebugContext &debugContext, poplar::OptionFlags options,
    matmul::PlanningCache *cache = nullptr);

/// A new tensor equal to `a` ([..., N, N]) with the unused triangle zeroed: the part above the
/// diagonal when `lower`, below it otherwise; with `unitDiagonal` the diagonal becomes ones.
poplar::Tensor triangularMask(poplar::Graph &graph, const poplar::Tensor &a, bool lower,
                              bool unitDiagonal, poplar::program::Sequence &prog,
                              const poplar::DebugContext &debugContext = {});

/// X with A·X = B (`leftSide`) or X·A = B, A triangular; returns a new tensor of b's shape.
poplar::Tensor triangularSolve(poplar::Graph &graph, const poplar::Tensor &a,
                               const poplar::Tensor &b, bool leftSide, bool lower,
                               bool unitDiagonal, poplar::program::Sequence &prog,
                               const poplar::DebugContext &debugContext = {},
                               const poplar::OptionFlags &options = {},
                               matmul::PlanningCache *cache = nullptr);

/// Deprecated form with the block size as an argument.
poplar::Tensor
triangularSolve(poplar::Graph &graph, const poplar::Tensor &a, const poplar::Tensor &b,
                bool leftSide, bool lower, bool unitDiagonal, std::size_t blockSize,
                poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                poplar::OptionFlags options = {}, matmul::PlanningCache *cache = nullptr);

/// The matrix multiplies triangularSolve() runs for these shapes, for planning ahead.
std::vector<std::pair<MatMulParams, poplar::OptionFlags>> getTriangularSolveMatMulPrePlanParameters(
    const poplar::Type &inputType, const poplar::Type &outputType,
    const std::vector<std::size_t> &aShape, const std::vector<std::size_t> &bShape, bool leftSide,
    bool lower, const poplar::OptionFlags &options);

/// Deprecated form with the block size as an argument.
std::vector<std::pair<MatMulParams, poplar::OptionFlags>> getTriangularSolveMatMulPrePlanParameters(
    const poplar::Type &inputType, const poplar::Type &outputType,
    const std::vector<std::size_t> &aShape, const std::vector<std::size_t> &bShape, bool leftSide,
    bool lower, std::size_t blockSize, poplar::OptionFlags options);

} // namespace poplin
