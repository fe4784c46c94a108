// The operation types of popops element-wise expressions (as PopLibs names them, in PopLibs'
// order). Which element types each accepts is listed beside it; any other type throws
// poputil::poplibs_error naming the operation and the type when the expression is mapped.
#pragma once

#include <string>

namespace popops {
namespace expr {

/// Three-operand operations: SELECT(a, b, c) = c ? a : b (c BOOL; a, b of any one type);
/// CLAMP(a, b, c) = min(max(a, b), c) (FLOAT, HALF, INT, UNSIGNED_INT).
enum class TernaryOpType { CLAMP, SELECT };

/// Two-operand operations; both operands have one type. "float" = FLOAT and HALF, "int" = INT,
/// UNSIGNED_INT, SHORT and UNSIGNED_SHORT (16-bit results wrap as 16-bit arithmetic; SHIFT_RIGHT
/// of a SHORT shifts its 16-bit pattern); "→ BOOL" marks a BOOL result.
enum class BinaryOpType {
  ADD,                     ///< float, int
  ATAN2,                   ///< float: atan2(a, b), the angle of the point (b, a)
  BITWISE_AND,             ///< int
  BITWISE_OR,              ///< int
  BITWISE_XOR,             ///< int
  BITWISE_XNOR,            ///< int: ~(a ^ b)
  DIVIDE,                  ///< float, int (int: truncates toward zero; by zero gives 0)
  EQUAL,                   ///< float, int, BOOL → BOOL
  GREATER_THAN_EQUAL,      ///< float, int, BOOL → BOOL
  GREATER_THAN,            ///< float, int, BOOL → BOOL
  INV_STD_DEV_TO_VARIANCE, ///< float: 1 / a² − b (undoes VARIANCE_TO_INV_STD_DEV)
  LESS_THAN_EQUAL,         ///< float, int, BOOL → BOOL
  LOGICAL_AND,             ///< BOOL
  LOGICAL_OR,              ///< BOOL
  LESS_THAN,               ///< float, int, BOOL → BOOL
  MAXIMUM,                 ///< float, int
  MINIMUM,                 ///< float, int
  MULTIPLY,                ///< float, int
  NOT_EQUAL,               ///< float, int, BOOL → BOOL
  POWER,                   ///< float
  REMAINDER,               ///< float (fmod), int (C %: sign of the dividend; by zero gives a)
  SHIFT_LEFT,              ///< int: a << b; b ≥ 32 gives 0
  SHIFT_RIGHT,             ///< int: logical (zero-filling) a >> b; b ≥ 32 gives 0
  SHIFT_RIGHT_SIGN_EXTEND, ///< INT, SHORT: arithmetic a >> b; b ≥ 32 gives 0 or −1
  SUBTRACT,                ///< float, int
  VARIANCE_TO_INV_STD_DEV  ///< float: 1 / √(a + b)
};

/// One-operand operations.
enum class UnaryOpType {
  ABSOLUTE,            ///< float, int
  ASIN,                ///< float
  BITWISE_NOT,         ///< int
  CBRT,                ///< float
  CEIL,                ///< float
  COS,                 ///< float
  COUNT_LEADING_ZEROS, ///< INT, UNSIGNED_INT: leading zero bits (32 for 0)
  ERF,                 ///< float
  EXPONENT,            ///< float
  EXPONENT_MINUS_ONE,  ///< float
  EXPONENT2,           ///< float: 2^a
  FLOOR,               ///< float
  GELU_ERF,            ///< float: a·½(1 + erf(a/√2))
  INVERSE,             ///< float
  IS_FINITE,           ///< float → BOOL
  IS_INF,              ///< float → BOOL
  IS_NAN,              ///< float → BOOL
  LOGARITHM,           ///< float
  LOGARITHM_ONE_PLUS,  ///< float
  LOGICAL_NOT,         ///< BOOL
  NEGATE,              ///< float, int
  NEARBY_INT,          ///< float: to the nearest integer, halfway cases to even
  POPCOUNT,            ///< INT, UNSIGNED_INT: the number of set bits
  RELU,                ///< float
  SIGNUM,              ///< float, int
  SIN,                 ///< float
  TAN,                 ///< float
  TANH,                ///< float
  ROUND,               ///< float: halfway cases away from zero
  SQRT,                ///< float
  SQUARE,              ///< float, int
  SIGMOID,             ///< float
  RSQRT,               ///< float
  TRUNC                ///< float
};

/// "ADD", "SQRT", …: how expressions print and how errors name an operation.
std::string toString(UnaryOpType op);
std::string toString(BinaryOpType op);
std::string toString(TernaryOpType op);

} // namespace expr
} // namespace popops
