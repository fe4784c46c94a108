// Whole expressions the map compiler replaces with one fused kernel.
#pragma once

#include <optional>
#include <vector>

#include <popops/Expr.hpp>

#include "popops/MapExprBytecode.hpp"

namespace popops::detail {

/// A recognised expression: the fused opcode and the subexpressions it reads, in the opcode's
/// operand order.
struct FusedKernelMatch {
  tessera::codelets::popops::mapexpr::Op op;
  std::vector<const expr::Expr *> operands;
};

/// Whether `e` is, node for node, one of the expressions that have a fused kernel: the
/// tanh-approximated GELU x·0.5·(1 + tanh(x·√(2/π)·(1 + 0.044715·x·x))) and its input gradient
/// dy·(0.5·(1 + t) + 0.5·x·(1 − t·t)·√(2/π)·(1 + 3·0.044715·x·x)), as popnn::nonLinearity writes
/// them, where x and dy may be any subexpressions. Element-wise maps pass each operation over
/// memory once, so a fused kernel saves a pass per operation of the expression.
std::optional<FusedKernelMatch> matchFusedKernel(const expr::Expr &e);

} // namespace popops::detail
