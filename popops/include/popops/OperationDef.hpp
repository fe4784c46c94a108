// The operators a reduction or a multi-update applies (popops::reduce, popops::multiUpdateOp…),
// declared on their own so vertex code and option parsers can name them without the rest of
// popops.
#pragma once

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

} // namespace popops
