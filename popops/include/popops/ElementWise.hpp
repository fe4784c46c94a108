// Element-wise operations on tensors, fused: `map` compiles a whole expression
// (popops/Expr.hpp) into ONE compute set whose vertices make one pass over memory.
//
// Broadcasting follows NumPy, as PopLibs does: shapes are aligned at their trailing
// dimensions and each pair of dimensions must be equal or one of them 1; a one-element
// tensor acts as a scalar. The result has the broadcast shape, the element type of the
// expression, and the tile mapping of the first input that already has the full shape
// (else a linear mapping). Shapes that do not broadcast, types an operation does not
// support (e.g. SQRT of INT) and mismatched operand types throw poputil::poplibs_error
// naming the shapes, types and expression.
//
// Types: FLOAT and HALF (HALF is computed in float and rounded once, when stored), INT and
// UNSIGNED_INT for the integer-capable operations, BOOL for comparisons and logic.
//
// Options (all accepted for PopLibs compatibility, none changes the result):
// "enableGenerateCodelet", "forceGenerateCodelet", "enableExpressionOptimizations", each "true" or
// "false"; any other key or value throws poplar::invalid_option naming it.
#pragma once

#include <type_traits>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <popops/Expr.hpp>

namespace popops {

/// Evaluates `expr` with placeholder _i standing for `ts[i-1]`; returns a new tensor.
poplar::Tensor map(poplar::Graph &graph, const expr::Expr &expr,
                   const std::vector<poplar::Tensor> &ts, poplar::program::Sequence &prog,
                   const poplar::DebugContext &debugContext = {},
                   const poplar::OptionFlags &options = {});

/// As map, writing the result into `ts[0]`, which must have the result's shape and type.
void mapInPlace(poplar::Graph &graph, const expr::Expr &expr, const std::vector<poplar::Tensor> &ts,
                poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                const poplar::OptionFlags &options = {});

/// As map, writing the result into `out`, which must have the result's shape and type.
void mapWithOutput(poplar::Graph &graph, const expr::Expr &expr,
                   const std::vector<poplar::Tensor> &ts, const poplar::Tensor &out,
                   poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                   const poplar::OptionFlags &options = {});

inline poplar::Tensor map(poplar::Graph &graph, expr::UnaryOpType op, const poplar::Tensor &a,
                          poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext = {},
                          const poplar::OptionFlags &options = {}) {
  return map(graph, expr::UnaryOp(op, expr::_1), {a}, prog, debugContext, options);
}
inline poplar::Tensor map(poplar::Graph &graph, expr::BinaryOpType op, const poplar::Tensor &a,
                          const poplar::Tensor &b, poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext = {},
                          const poplar::OptionFlags &options = {}) {
  return map(graph, expr::BinaryOp(op, expr::_1, expr::_2), {a, b}, prog, debugContext, options);
}
inline poplar::Tensor map(poplar::Graph &graph, expr::TernaryOpType op, const poplar::Tensor &a,
                          const poplar::Tensor &b, const poplar::Tensor &c,
                          poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext = {},
                          const poplar::OptionFlags &options = {}) {
  return map(graph, expr::TernaryOp(op, expr::_1, expr::_2, expr::_3), {a, b, c}, prog,
             debugContext, options);
}

// ---- named operations ---------------------------------------------------------------------
// Each NAME has NAME(graph, A, prog, …) returning a new tensor, NAMEInPlace(graph, A, prog, …)
// writing into A and NAMEWithOutput(graph, A, out, prog, …); binary ones take (A, B) where
// either may instead be a host constant, ternary ones (A, B, C).

#define POPOPS_UNARY_OP(NAME, OP)                                                                  \
  inline poplar::Tensor NAME(                                                                      \
      poplar::Graph &graph, const poplar::Tensor &A, poplar::program::Sequence &prog,              \
      const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {    \
    return map(graph, expr::UnaryOp(expr::UnaryOpType::OP, expr::_1), {A}, prog,                   \
               {debugContext, #NAME}, options);                                                    \
  }                                                                                                \
  inline void NAME##InPlace(                                                                       \
      poplar::Graph &graph, const poplar::Tensor &A, poplar::program::Sequence &prog,              \
      const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {    \
    mapInPlace(graph, expr::UnaryOp(expr::UnaryOpType::OP, expr::_1), {A}, prog,                   \
               {debugContext, #NAME "InPlace"}, options);                                          \
  }                                                                                                \
  inline void NAME##WithOutput(poplar::Graph &graph, const poplar::Tensor &A,                      \
                               const poplar::Tensor &out, poplar::program::Sequence &prog,         \
                               const poplar::DebugContext &debugContext = {},                      \
                               const poplar::OptionFlags &options = {}) {                          \
    mapWithOutput(graph, expr::UnaryOp(expr::UnaryOpType::OP, expr::_1), {A}, out, prog,           \
                  {debugContext, #NAME "WithOutput"}, options);                                    \
  }

POPOPS_UNARY_OP(neg, NEGATE)
POPOPS_UNARY_OP(abs, ABSOLUTE)
POPOPS_UNARY_OP(exp, EXPONENT)
POPOPS_UNARY_OP(expm1, EXPONENT_MINUS_ONE)
POPOPS_UNARY_OP(log, LOGARITHM)
POPOPS_UNARY_OP(log1p, LOGARITHM_ONE_PLUS)
POPOPS_UNARY_OP(sqrt, SQRT)
POPOPS_UNARY_OP(rsqrt, RSQRT)
POPOPS_UNARY_OP(square, SQUARE)
POPOPS_UNARY_OP(inv, INVERSE)
POPOPS_UNARY_OP(tanh, TANH)
POPOPS_UNARY_OP(sigmoid, SIGMOID)
POPOPS_UNARY_OP(signum, SIGNUM)
POPOPS_UNARY_OP(floor, FLOOR)
POPOPS_UNARY_OP(ceil, CEIL)
POPOPS_UNARY_OP(round, ROUND)
POPOPS_UNARY_OP(trunc, TRUNC)
POPOPS_UNARY_OP(cos, COS)
POPOPS_UNARY_OP(sin, SIN)
POPOPS_UNARY_OP(erf, ERF)
POPOPS_UNARY_OP(relu, RELU)
POPOPS_UNARY_OP(logicalNot, LOGICAL_NOT)
#undef POPOPS_UNARY_OP

#define POPOPS_BINARY_OP(NAME, OP)                                                                 \
  inline poplar::Tensor NAME(poplar::Graph &graph, const poplar::Tensor &A,                        \
                             const poplar::Tensor &B, poplar::program::Sequence &prog,             \
                             const poplar::DebugContext &debugContext = {},                        \
                             const poplar::OptionFlags &options = {}) {                            \
    return map(graph, expr::BinaryOp(expr::BinaryOpType::OP, expr::_1, expr::_2), {A, B}, prog,    \
               {debugContext, #NAME}, options);                                                    \
  }                                                                                                \
  template <class C, class = typename std::enable_if<std::is_arithmetic<C>::value>::type>          \
  inline poplar::Tensor NAME(                                                                      \
      poplar::Graph &graph, const poplar::Tensor &A, C B, poplar::program::Sequence &prog,         \
      const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {    \
    return map(graph, expr::BinaryOp(expr::BinaryOpType::OP, expr::_1, expr::Const(B)), {A}, prog, \
               {debugContext, #NAME}, options);                                                    \
  }                                                                                                \
  template <class C, class = typename std::enable_if<std::is_arithmetic<C>::value>::type>          \
  inline poplar::Tensor NAME(                                                                      \
      poplar::Graph &graph, C A, const poplar::Tensor &B, poplar::program::Sequence &prog,         \
      const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {    \
    return map(graph, expr::BinaryOp(expr::BinaryOpType::OP, expr::Const(A), expr::_1), {B}, prog, \
               {debugContext, #NAME}, options);                                                    \
  }                                                                                                \
  inline void NAME##WithOutput(                                                                    \
      poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,                      \
      const poplar::Tensor &out, poplar::program::Sequence &prog,                                  \
      const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {    \
    mapWithOutput(graph, expr::BinaryOp(expr::BinaryOpType::OP, expr::_1, expr::_2), {A, B}, out,  \
                  prog, {debugContext, #NAME "WithOutput"}, options);                              \
  }

#define POPOPS_BINARY_OP_IN_PLACE(NAME, OP)                                                        \
  POPOPS_BINARY_OP(NAME, OP)                                                                       \
  inline void NAME##InPlace(poplar::Graph &graph, const poplar::Tensor &A,                         \
                            const poplar::Tensor &B, poplar::program::Sequence &prog,              \
                            const poplar::DebugContext &debugContext = {},                         \
                            const poplar::OptionFlags &options = {}) {                             \
    mapInPlace(graph, expr::BinaryOp(expr::BinaryOpType::OP, expr::_1, expr::_2), {A, B}, prog,    \
               {debugContext, #NAME "InPlace"}, options);                                          \
  }                                                                                                \
  template <class C, class = typename std::enable_if<std::is_arithmetic<C>::value>::type>          \
  inline void NAME##InPlace(                                                                       \
      poplar::Graph &graph, const poplar::Tensor &A, C B, poplar::program::Sequence &prog,         \
      const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {    \
    mapInPlace(graph, expr::BinaryOp(expr::BinaryOpType::OP, expr::_1, expr::Const(B)), {A}, prog, \
               {debugContext, #NAME "InPlace"}, options);                                          \
  }

POPOPS_BINARY_OP_IN_PLACE(add, ADD)
POPOPS_BINARY_OP_IN_PLACE(sub, SUBTRACT)
POPOPS_BINARY_OP_IN_PLACE(mul, MULTIPLY)
POPOPS_BINARY_OP_IN_PLACE(div, DIVIDE)
POPOPS_BINARY_OP_IN_PLACE(pow, POWER)
POPOPS_BINARY_OP_IN_PLACE(max, MAXIMUM)
POPOPS_BINARY_OP_IN_PLACE(min, MINIMUM)
POPOPS_BINARY_OP_IN_PLACE(logicalAnd, LOGICAL_AND)
POPOPS_BINARY_OP_IN_PLACE(logicalOr, LOGICAL_OR)
// Comparisons give BOOL results, so they have no InPlace form.
POPOPS_BINARY_OP(eq, EQUAL)
POPOPS_BINARY_OP(neq, NOT_EQUAL)
POPOPS_BINARY_OP(lt, LESS_THAN)
POPOPS_BINARY_OP(lteq, LESS_THAN_EQUAL)
POPOPS_BINARY_OP(gt, GREATER_THAN)
POPOPS_BINARY_OP(gteq, GREATER_THAN_EQUAL)
// Shorter spellings of lteq / gteq.
POPOPS_BINARY_OP(lte, LESS_THAN_EQUAL)
POPOPS_BINARY_OP(gte, GREATER_THAN_EQUAL)
#undef POPOPS_BINARY_OP_IN_PLACE
#undef POPOPS_BINARY_OP

/// C ? A : B element-wise (C is BOOL).
inline poplar::Tensor select(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                             const poplar::Tensor &C, poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext = {},
                             const poplar::OptionFlags &options = {}) {
  return map(graph, expr::TernaryOpType::SELECT, A, B, C, prog, {debugContext, "select"}, options);
}
inline void selectInPlace(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                          const poplar::Tensor &C, poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext = {},
                          const poplar::OptionFlags &options = {}) {
  mapInPlace(graph, expr::Select(expr::_1, expr::_2, expr::_3), {A, B, C}, prog,
             {debugContext, "selectInPlace"}, options);
}
inline void selectWithOutput(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                             const poplar::Tensor &C, const poplar::Tensor &out,
                             poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext = {},
                             const poplar::OptionFlags &options = {}) {
  mapWithOutput(graph, expr::Select(expr::_1, expr::_2, expr::_3), {A, B, C}, out, prog,
                {debugContext, "selectWithOutput"}, options);
}

/// min(max(A, B), C) element-wise: A clamped to [B, C].
inline poplar::Tensor clamp(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                            const poplar::Tensor &C, poplar::program::Sequence &prog,
                            const poplar::DebugContext &debugContext = {},
                            const poplar::OptionFlags &options = {}) {
  return map(graph, expr::TernaryOpType::CLAMP, A, B, C, prog, {debugContext, "clamp"}, options);
}
/// A clamped to the host constants [B, C].
template <class C, class = typename std::enable_if<std::is_arithmetic<C>::value>::type>
inline poplar::Tensor
clamp(poplar::Graph &graph, const poplar::Tensor &A, C B, C Cv, poplar::program::Sequence &prog,
      const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {
  return map(graph, expr::Clamp(expr::_1, expr::Const(B), expr::Const(Cv)), {A}, prog,
             {debugContext, "clamp"}, options);
}
inline void clampInPlace(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                         const poplar::Tensor &C, poplar::program::Sequence &prog,
                         const poplar::DebugContext &debugContext = {},
                         const poplar::OptionFlags &options = {}) {
  mapInPlace(graph, expr::Clamp(expr::_1, expr::_2, expr::_3), {A, B, C}, prog,
             {debugContext, "clampInPlace"}, options);
}
template <class C, class = typename std::enable_if<std::is_arithmetic<C>::value>::type>
inline void clampInPlace(poplar::Graph &graph, const poplar::Tensor &A, C B, C Cv,
                         poplar::program::Sequence &prog,
                         const poplar::DebugContext &debugContext = {},
                         const poplar::OptionFlags &options = {}) {
  mapInPlace(graph, expr::Clamp(expr::_1, expr::Const(B), expr::Const(Cv)), {A}, prog,
             {debugContext, "clampInPlace"}, options);
}
inline void clampWithOutput(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                            const poplar::Tensor &C, const poplar::Tensor &out,
                            poplar::program::Sequence &prog,
                            const poplar::DebugContext &debugContext = {},
                            const poplar::OptionFlags &options = {}) {
  mapWithOutput(graph, expr::Clamp(expr::_1, expr::_2, expr::_3), {A, B, C}, out, prog,
                {debugContext, "clampWithOutput"}, options);
}

} // namespace popops
