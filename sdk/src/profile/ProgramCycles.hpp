// The IPU cost model's cycles for one run of a program, read from its flattened steps without
// running it — how the trainers estimate a model too large to run on the host (full-size
// ResNet-50, BERT-Large) on a real IPU.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/CompiledGraph.hpp"

namespace poplar::profile {

/// Cycles of one run of `plan.programStart[program]`, from `stepCycles` (one per step, as the
/// graph profile prices them). Control flow follows the program's structure: Repeat counts its
/// iterations, If and Switch their most expensive branch, RepeatWhile one pass of its condition
/// and body (its trip count depends on data), Call the function's cycles. `program` must exist.
std::uint64_t staticProgramCycles(const compiler::CompiledGraph &plan,
                                  const std::vector<std::uint64_t> &stepCycles,
                                  std::size_t program);

} // namespace poplar::profile
