// The reduction operators the popops::Reduce* vertices are instantiated for. Mirrors
// popops::Operation (the library static_asserts the two stay in step) and names each one as it
// appears in vertex type names, e.g. "popops::ReducePartials<ADD,float,float>".
#pragma once

#include <array>
#include <cstddef>

namespace tessera::codelets::popops {

enum class ReduceKind {
  Add,
  Mul,
  Min,
  Max,
  LogicalAnd,
  LogicalOr,
  SquareAdd,
  LogAdd,
};
inline constexpr std::size_t kNumReduceKinds = 8;

inline constexpr std::array<const char *, kNumReduceKinds> kReduceKindNames = {
    "ADD", "MUL", "MIN", "MAX", "LOGICAL_AND", "LOGICAL_OR", "SQUARE_ADD", "LOG_ADD"};

inline constexpr const char *reduceKindName(ReduceKind k) {
  return kReduceKindNames[static_cast<std::size_t>(k)];
}

} // namespace tessera::codelets::popops
