// The operators a reduction can apply (popops::reduce and friends).
#pragma once

#include <iosfwd>

#include <popops/OperationDef.hpp>

namespace popops {

/// Reads an operation by its enumerator name ("ADD", "SQUARE_ADD", …); sets failbit otherwise.
std::istream &operator>>(std::istream &is, Operation &op);
/// Writes the enumerator name.
std::ostream &operator<<(std::ostream &os, const Operation &op);

} // namespace popops
