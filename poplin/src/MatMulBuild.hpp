// Building a planned grouped matrix multiply into a graph: operand layouts and compute sets.
#pragma once

#include <optional>
#include <string>

#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

#include <poplin/MatMulPlan.hpp>

namespace poplin::detail {

enum class Operand { LHS, RHS, Output };

/// A new [G][M][K] (LHS), [G][K][N] (RHS) or [G][M][N] (Output) tensor whose blocks live on the
/// tiles the plan multiplies them on.
poplar::Tensor createBlockedTensor(poplar::Graph &graph, const MatMulPlan &plan, Operand which,
                                   const poplar::Type &type, const std::string &name);

/// out[g] = A[g] · B[g] (or, with `scale`, out[g] += scale · A[g] · B[g]) for 3-D views.
/// With `aTransposed`, A is given as its transpose [G][K][M] (with `bTransposed`, B as
/// [G][N][K]): for operands stored that way with contiguous rows, so units receive whole rows
/// and transpose them themselves instead of gathering element by element.
void buildMatMul(poplar::Graph &graph, const MatMulPlan &plan, const poplar::Tensor &A,
                 const poplar::Tensor &B, const poplar::Tensor &out, std::optional<float> scale,
                 poplar::program::Sequence &prog, const std::string &name, bool aTransposed = false,
                 bool bTransposed = false);

} // namespace poplin::detail
