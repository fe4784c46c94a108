// Variable liveness over the Engine's programs (ARCHITECTURE.md decision 3): which variables
// must keep their contents at all times, and when each of the others holds a value that a
// later step reads — so the memory layout may place variables whose lifetimes never meet in
// the same bytes of a tile.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <poplar/Program.hpp>

#include "core/GraphData.hpp"

namespace poplar::compiler {

/// A closed range [first, last] of the analysis's step numbers.
using StepSpan = std::pair<std::uint64_t, std::uint64_t>;

struct Lifetimes {
  /// Per variable: it holds a value between runs or at every step — it has an initial value
  /// or a host read/write handle, some step reads an element of it that the same run has not
  /// written before (a weight, a counter, a loop-carried value), or no program touches it.
  std::vector<bool> persistent;
  /// Per variable that is not persistent: the step numbers at which its value may be needed,
  /// as sorted disjoint spans. Two such variables may share memory when their spans never meet.
  std::vector<std::vector<StepSpan>> spans;

  bool meet(unsigned a, unsigned b) const;
};

/// Walks every program as it runs (shared sub-programs and functions at each use). Falls back
/// to "every variable persistent" for programs that would take too long to walk.
Lifetimes analyseLifetimes(const core::GraphData &graph,
                           const std::vector<program::Program> &programs);

} // namespace poplar::compiler
