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
// Types: FLOAT and HALF (HALF is computed in float and rounded once, when stored), INT,
// UNSIGNED_INT, SHORT and UNSIGNED_SHORT for the integer-capable operations (arithmetic, bitwise
// and shifts; 16-bit results wrap as 16-bit arithmetic), BOOL for
// comparisons and logic; popops/ExprOp.hpp lists which operation takes which. Integer results
// are defined where C leaves them open: x / 0 = 0, x % 0 = x, shifts by 32 or more give 0 (−1
// for a negative SHIFT_RIGHT_SIGN_EXTEND), SHIFT_RIGHT is logical also for INT.
//
// Options (all accepted for PopLibs compatibility, none changes the result):
// "enableGenerateCodelet", "forceGenerateCodelet", "enableExpressionOptimizations", each "true" or
// "false"; any other key or value throws poplar::invalid_option naming it.
#pragma once

#include <ostream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <popops/Expr.hpp>
#include <poputil/DebugInfo.hpp>

namespace poputil {
/// Operation types in debug records: their names ("ADD", "SQRT", …).
template <> poplar::ProfileValue toProfileValue(const popops::expr::UnaryOpType &op);
template <> poplar::ProfileValue toProfileValue(const popops::expr::BinaryOpType &op);
template <> poplar::ProfileValue toProfileValue(const popops::expr::TernaryOpType &op);
} // namespace poputil

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

inline void mapInPlace(poplar::Graph &graph, expr::UnaryOpType op, const poplar::Tensor &t,
                       poplar::program::Sequence &prog,
                       const poplar::DebugContext &debugContext = {},
                       const poplar::OptionFlags &options = {}) {
  mapInPlace(graph, expr::UnaryOp(op, expr::_1), {t}, prog, debugContext, options);
}
inline void mapInPlace(poplar::Graph &graph, expr::BinaryOpType op, const poplar::Tensor &a,
                       const poplar::Tensor &b, poplar::program::Sequence &prog,
                       const poplar::DebugContext &debugContext = {},
                       const poplar::OptionFlags &options = {}) {
  mapInPlace(graph, expr::BinaryOp(op, expr::_1, expr::_2), {a, b}, prog, debugContext, options);
}
inline void mapInPlace(poplar::Graph &graph, expr::TernaryOpType op, const poplar::Tensor &a,
                       const poplar::Tensor &b, const poplar::Tensor &c,
                       poplar::program::Sequence &prog,
                       const poplar::DebugContext &debugContext = {},
                       const poplar::OptionFlags &options = {}) {
  mapInPlace(graph, expr::TernaryOp(op, expr::_1, expr::_2, expr::_3), {a, b, c}, prog,
             debugContext, options);
}
inline void mapWithOutput(poplar::Graph &graph, expr::UnaryOpType op, const poplar::Tensor &in,
                          const poplar::Tensor &out, poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext = {},
                          const poplar::OptionFlags &options = {}) {
  mapWithOutput(graph, expr::UnaryOp(op, expr::_1), {in}, out, prog, debugContext, options);
}
inline void mapWithOutput(poplar::Graph &graph, expr::BinaryOpType op, const poplar::Tensor &a,
                          const poplar::Tensor &b, const poplar::Tensor &out,
                          poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext = {},
                          const poplar::OptionFlags &options = {}) {
  mapWithOutput(graph, expr::BinaryOp(op, expr::_1, expr::_2), {a, b}, out, prog, debugContext,
                options);
}
inline void mapWithOutput(poplar::Graph &graph, expr::TernaryOpType op, const poplar::Tensor &a,
                          const poplar::Tensor &b, const poplar::Tensor &c,
                          const poplar::Tensor &out, poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext = {},
                          const poplar::OptionFlags &options = {}) {
  mapWithOutput(graph, expr::TernaryOp(op, expr::_1, expr::_2, expr::_3), {a, b, c}, out, prog,
                debugContext, options);
}

// ---- several expressions in one pass ------------------------------------------------------
// All expressions read the tensors as they were before the call (none sees another's result),
// and all run in one compute set. Each result has its own shape and type.

/// Evaluates every expression of `exprs` over `ts`; returns one new tensor per expression.
std::vector<poplar::Tensor> map(poplar::Graph &graph, const std::vector<expr::Any> &exprs,
                                const std::vector<poplar::Tensor> &ts,
                                poplar::program::Sequence &prog,
                                const poplar::DebugContext &debugContext = {},
                                const poplar::OptionFlags &options = {});

/// As the multi-expression map, writing the result of `exprs[i]` into `ts[i]`.
void mapInPlace(poplar::Graph &graph, const std::vector<expr::Any> &exprs,
                const std::vector<poplar::Tensor> &ts, poplar::program::Sequence &prog,
                const poplar::DebugContext &debugContext = {},
                const poplar::OptionFlags &options = {});

/// As the multi-expression map, writing the result of `exprs[i]` into `outs[i]`.
void mapWithOutput(poplar::Graph &graph, const std::vector<expr::Any> &exprs,
                   const std::vector<poplar::Tensor> &ts, const std::vector<poplar::Tensor> &outs,
                   poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                   const poplar::OptionFlags &options = {});

/// Writes to `os` the C++ source of a codelet computing `expr` over tensors like `ts` (their
/// element types and which of them are single elements broadcast to all): a readable vertex
/// with one Input per tensor the expression reads and one Output, type-checked as map would.
/// The vertices map runs interpret the same expression compiled to bytecode.
void outputGeneratedCodelet(const poplar::Target &target, const expr::Expr &expr,
                            const std::vector<poplar::Tensor> &ts,
                            const poplar::OptionFlags &options, std::ostream &os);

/// Checks that a host constant of C++ type `constType` can stand for an element of
/// `elementType`, as the constant-operand functions below require in PopLibs: the same device type
/// (`equivalent_device_type`), or float/double for FLOAT and HALF. Throws std::runtime_error
/// naming both types otherwise. (Tessera's constant-operand functions convert the constant to
/// the tensor's type instead of calling this.)
template <typename constType> inline void checkTypes(poplar::Type elementType, constType) {
  if (elementType != poplar::equivalent_device_type<constType>::value)
    throw std::runtime_error("popops::checkTypes: a host constant of type " +
                             poplar::equivalent_device_type<constType>::value.toString() +
                             " does not match the tensor's element type " + elementType.toString());
}
template <> inline void checkTypes<float>(poplar::Type elementType, float) {
  if (elementType != poplar::FLOAT && elementType != poplar::HALF)
    throw std::runtime_error("popops::checkTypes: a host float constant needs a FLOAT or HALF "
                             "tensor, not " +
                             elementType.toString());
}
template <> inline void checkTypes<double>(poplar::Type elementType, double) {
  if (elementType != poplar::FLOAT && elementType != poplar::HALF)
    throw std::runtime_error("popops::checkTypes: a host double constant needs a FLOAT or HALF "
                             "tensor, not " +
                             elementType.toString());
}

// ---- named operations ---------------------------------------------------------------------
// Each NAME has NAME(graph, A, prog, …) returning a new tensor, NAMEInPlace(graph, A, prog, …)
// writing into A and NAMEWithOutput(graph, A, out, prog, …). Binary ones take (A, B), where
// either may instead be a host constant (a scalar of A's or B's element type; the InPlace form
// only for B). Ternary ones take (A, B, C).

#define POPOPS_UNARY_OP_NEW(NAME, OP)                                                              \
  inline poplar::Tensor NAME(                                                                      \
      poplar::Graph &graph, const poplar::Tensor &A, poplar::program::Sequence &prog,              \
      const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {    \
    return map(graph, expr::UnaryOp(expr::UnaryOpType::OP, expr::_1), {A}, prog,                   \
               {debugContext, #NAME}, options);                                                    \
  }                                                                                                \
  inline void NAME##WithOutput(poplar::Graph &graph, const poplar::Tensor &A,                      \
                               const poplar::Tensor &out, poplar::program::Sequence &prog,         \
                               const poplar::DebugContext &debugContext = {},                      \
                               const poplar::OptionFlags &options = {}) {                          \
    mapWithOutput(graph, expr::UnaryOp(expr::UnaryOpType::OP, expr::_1), {A}, out, prog,           \
                  {debugContext, #NAME "WithOutput"}, options);                                    \
  }

#define POPOPS_UNARY_OP(NAME, OP)                                                                  \
  POPOPS_UNARY_OP_NEW(NAME, OP)                                                                    \
  inline void NAME##InPlace(                                                                       \
      poplar::Graph &graph, const poplar::Tensor &A, poplar::program::Sequence &prog,              \
      const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {    \
    mapInPlace(graph, expr::UnaryOp(expr::UnaryOpType::OP, expr::_1), {A}, prog,                   \
               {debugContext, #NAME "InPlace"}, options);                                          \
  }

POPOPS_UNARY_OP(neg, NEGATE)
POPOPS_UNARY_OP(abs, ABSOLUTE)
POPOPS_UNARY_OP(asin, ASIN)
POPOPS_UNARY_OP(bitwiseNot, BITWISE_NOT)
POPOPS_UNARY_OP(cbrt, CBRT)
POPOPS_UNARY_OP(countLeadingZeros, COUNT_LEADING_ZEROS)
POPOPS_UNARY_OP(exp, EXPONENT)
POPOPS_UNARY_OP(exp2, EXPONENT2)
POPOPS_UNARY_OP(expm1, EXPONENT_MINUS_ONE)
POPOPS_UNARY_OP(geluErf, GELU_ERF)
POPOPS_UNARY_OP(log, LOGARITHM)
POPOPS_UNARY_OP(log1p, LOGARITHM_ONE_PLUS)
POPOPS_UNARY_OP(nearbyInt, NEARBY_INT)
POPOPS_UNARY_OP(popcount, POPCOUNT)
POPOPS_UNARY_OP(sqrt, SQRT)
POPOPS_UNARY_OP(rsqrt, RSQRT)
POPOPS_UNARY_OP(square, SQUARE)
POPOPS_UNARY_OP(inv, INVERSE)
POPOPS_UNARY_OP(tan, TAN)
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
// Predicates give BOOL results from FLOAT/HALF operands, so they have no InPlace form.
POPOPS_UNARY_OP_NEW(isFinite, IS_FINITE)
POPOPS_UNARY_OP_NEW(isInf, IS_INF)
POPOPS_UNARY_OP_NEW(isNaN, IS_NAN)
#undef POPOPS_UNARY_OP
#undef POPOPS_UNARY_OP_NEW

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
  }                                                                                                \
  inline void NAME##WithOutput(                                                                    \
      poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,                      \
      const poplar::Tensor &out, poplar::program::Sequence &prog,                                  \
      const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {    \
    mapWithOutput(graph, expr::BinaryOp(expr::BinaryOpType::OP, expr::_1, expr::_2), {A, B}, out,  \
                  prog, {debugContext, #NAME "WithOutput"}, options);                              \
  }                                                                                                \
  template <class C, class = typename std::enable_if<std::is_arithmetic<C>::value>::type>          \
  inline void NAME##WithOutput(poplar::Graph &graph, const poplar::Tensor &A, C B,                 \
                               const poplar::Tensor &out, poplar::program::Sequence &prog,         \
                               const poplar::DebugContext &debugContext = {},                      \
                               const poplar::OptionFlags &options = {}) {                          \
    mapWithOutput(graph, expr::BinaryOp(expr::BinaryOpType::OP, expr::_1, expr::Const(B)), {A},    \
                  out, prog, {debugContext, #NAME "WithOutput"}, options);                         \
  }                                                                                                \
  template <class C, class = typename std::enable_if<std::is_arithmetic<C>::value>::type>          \
  inline void NAME##WithOutput(poplar::Graph &graph, C A, const poplar::Tensor &B,                 \
                               const poplar::Tensor &out, poplar::program::Sequence &prog,         \
                               const poplar::DebugContext &debugContext = {},                      \
                               const poplar::OptionFlags &options = {}) {                          \
    mapWithOutput(graph, expr::BinaryOp(expr::BinaryOpType::OP, expr::Const(A), expr::_1), {B},    \
                  out, prog, {debugContext, #NAME "WithOutput"}, options);                         \
  }

POPOPS_BINARY_OP(add, ADD)
POPOPS_BINARY_OP(sub, SUBTRACT)
POPOPS_BINARY_OP(mul, MULTIPLY)
POPOPS_BINARY_OP(div, DIVIDE)
POPOPS_BINARY_OP(rem, REMAINDER)
POPOPS_BINARY_OP(pow, POWER)
POPOPS_BINARY_OP(max, MAXIMUM)
POPOPS_BINARY_OP(min, MINIMUM)
POPOPS_BINARY_OP(atan2, ATAN2)
POPOPS_BINARY_OP(bitwiseAnd, BITWISE_AND)
POPOPS_BINARY_OP(bitwiseOr, BITWISE_OR)
POPOPS_BINARY_OP(bitwiseXor, BITWISE_XOR)
POPOPS_BINARY_OP(bitwiseXnor, BITWISE_XNOR)
POPOPS_BINARY_OP(shiftLeft, SHIFT_LEFT)
POPOPS_BINARY_OP(shiftRight, SHIFT_RIGHT)
POPOPS_BINARY_OP(shiftRightSignExtend, SHIFT_RIGHT_SIGN_EXTEND)
POPOPS_BINARY_OP(logicalAnd, LOGICAL_AND)
POPOPS_BINARY_OP(logicalOr, LOGICAL_OR)
/// invStdDevToVariance(invStdDev, epsilon) = 1 / invStdDev² − epsilon and
/// varianceToInvStdDev(variance, epsilon) = 1 / √(variance + epsilon): each undoes the other.
POPOPS_BINARY_OP(invStdDevToVariance, INV_STD_DEV_TO_VARIANCE)
POPOPS_BINARY_OP(varianceToInvStdDev, VARIANCE_TO_INV_STD_DEV)
/// The variance conversions with a result type of their own (PopLibs' older overloads, still
/// declared): 1 / √(src + epsilon) as `dstType`, which must be HALF or src's type. `epsilon` is
/// one element of src's type (or a host float). Calls with four arguments and a tensor epsilon
/// are ambiguous with the overloads above, as in PopLibs: pass `dstType` (or options) too.
poplar::Tensor varianceToInvStdDev(poplar::Graph &graph, const poplar::Tensor &src,
                                   const poplar::Tensor &epsilon, poplar::program::Sequence &prog,
                                   const poplar::Type dstType = poplar::HALF,
                                   const poplar::DebugContext &debugContext = {});
poplar::Tensor varianceToInvStdDev(poplar::Graph &graph, const poplar::Tensor &src,
                                   const float epsilon, poplar::program::Sequence &prog,
                                   const poplar::Type dstType = poplar::HALF,
                                   const poplar::DebugContext &debugContext = {});
/// 1 / src² − epsilon as `dstType`, which must be FLOAT or src's type.
poplar::Tensor invStdDevToVariance(poplar::Graph &graph, const poplar::Tensor &src,
                                   const poplar::Tensor &epsilon, poplar::program::Sequence &prog,
                                   const poplar::Type dstType = poplar::FLOAT,
                                   const poplar::DebugContext &debugContext = {});
poplar::Tensor invStdDevToVariance(poplar::Graph &graph, const poplar::Tensor &src,
                                   const float epsilon, poplar::program::Sequence &prog,
                                   const poplar::Type dstType = poplar::FLOAT,
                                   const poplar::DebugContext &debugContext = {});

// Comparisons give BOOL results: their InPlace forms need a BOOL A.
POPOPS_BINARY_OP(eq, EQUAL)
POPOPS_BINARY_OP(neq, NOT_EQUAL)
POPOPS_BINARY_OP(lt, LESS_THAN)
POPOPS_BINARY_OP(lteq, LESS_THAN_EQUAL)
POPOPS_BINARY_OP(gt, GREATER_THAN)
POPOPS_BINARY_OP(gteq, GREATER_THAN_EQUAL)
// Shorter spellings of lteq / gteq.
POPOPS_BINARY_OP(lte, LESS_THAN_EQUAL)
POPOPS_BINARY_OP(gte, GREATER_THAN_EQUAL)
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
