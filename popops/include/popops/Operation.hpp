// The operators a reduction can apply (popops::reduce and friends).
#pragma once

#include <iosfwd>

namespace popops {

/// Type of operation in a reduction.
///  - ADD, MUL, MIN, MAX: the usual folds (FLOAT, HALF, INT).
///  - LOGICAL_AND, LOGICAL_OR: BOOL only.
///  - SQUARE_ADD: sum of squares (FLOAT, HALF, INT).
///  - LOG_ADD: log(sum(exp(x))), computed stably; input and output are log values (FLOAT, HALF).
enum class Operation {
  ADD,
  MUL,
  MIN,
  MAX,
  LOGICAL_AND,
  LOGICAL_OR,
  SQUARE_ADD,
  LOG_ADD,
};

/// Reads an operation by its enumerator name ("ADD", "SQUARE_ADD", …); sets failbit otherwise.
std::istream &operator>>(std::istream &is, Operation &op);
/// Writes the enumerator name.
std::ostream &operator<<(std::ostream &os, const Operation &op);

} // namespace popops
