#include <popops/Operation.hpp>

#include <istream>
#include <ostream>
#include <string>

#include "popops/ReduceKind.hpp"

namespace popops {

namespace {
namespace cp = tessera::codelets::popops;
// The codelets' operator list mirrors this enum one for one (ggml's guard).
static_assert(static_cast<int>(Operation::LOG_ADD) + 1 == static_cast<int>(cp::kNumReduceKinds));
static_assert(static_cast<int>(Operation::SQUARE_ADD) ==
              static_cast<int>(cp::ReduceKind::SquareAdd));
static_assert(static_cast<int>(Operation::LOGICAL_OR) ==
              static_cast<int>(cp::ReduceKind::LogicalOr));
} // namespace

std::istream &operator>>(std::istream &is, Operation &op) {
  std::string token;
  is >> token;
  for (std::size_t i = 0; i < cp::kNumReduceKinds; ++i)
    if (token == cp::kReduceKindNames[i]) {
      op = static_cast<Operation>(i);
      return is;
    }
  is.setstate(std::ios::failbit);
  return is;
}

std::ostream &operator<<(std::ostream &os, const Operation &op) {
  return os << cp::kReduceKindNames[static_cast<std::size_t>(op)];
}

} // namespace popops
