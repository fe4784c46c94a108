// The operation types of popops element-wise expressions (as PopLibs names them).
#pragma once

#include <string>

namespace popops {
namespace expr {

/// Three-operand operations: SELECT(a, b, c) = c ? a : b; CLAMP(a, b, c) = min(max(a, b), c).
enum class TernaryOpType { CLAMP, SELECT };

/// Two-operand operations. Comparisons and LOGICAL_AND/OR give BOOL results.
enum class BinaryOpType {
  ADD,
  DIVIDE,
  EQUAL,
  GREATER_THAN_EQUAL,
  GREATER_THAN,
  LESS_THAN_EQUAL,
  LOGICAL_AND,
  LOGICAL_OR,
  LESS_THAN,
  MAXIMUM,
  MINIMUM,
  MULTIPLY,
  NOT_EQUAL,
  POWER,
  SUBTRACT,
};

/// One-operand operations. Those marked "float" accept FLOAT and HALF only.
enum class UnaryOpType {
  ABSOLUTE,
  CEIL,               ///< float
  COS,                ///< float
  ERF,                ///< float
  EXPONENT,           ///< float
  EXPONENT_MINUS_ONE, ///< float
  FLOOR,              ///< float
  INVERSE,            ///< float
  LOGARITHM,          ///< float
  LOGARITHM_ONE_PLUS, ///< float
  LOGICAL_NOT,        ///< BOOL only
  NEGATE,
  RELU, ///< float
  SIGNUM,
  SIN,   ///< float
  TANH,  ///< float
  ROUND, ///< float: halfway cases away from zero
  SQRT,  ///< float
  SQUARE,
  SIGMOID, ///< float
  RSQRT,   ///< float
  TRUNC,   ///< float
};

/// "ADD", "SQRT", …: how expressions print and how errors name an operation.
std::string toString(UnaryOpType op);
std::string toString(BinaryOpType op);
std::string toString(TernaryOpType op);

} // namespace expr
} // namespace popops
