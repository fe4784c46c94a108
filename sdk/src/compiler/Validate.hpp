// Compiler stage 1, validation: checks the programs against the graph and lists what they use.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <poplar/Program.hpp>

#include "core/GraphData.hpp"
#include "core/ProgramNode.hpp"

namespace poplar::compiler {

/// What the programs use, found while checking them.
struct ProgramUse {
  std::vector<unsigned> computeSets; ///< In first-use order.
  std::vector<unsigned> functions;
  /// How many places refer to each program node (shared nodes are compiled once).
  std::map<const core::ProgramNode *, unsigned> references;
};

/// Walks the programs (and the functions they call) once; throws
/// graph_program_compilation_error for an object of another graph and control_program_error
/// for a function that calls itself, naming the program.
ProgramUse validatePrograms(const core::GraphData &graph,
                            const std::vector<program::Program> &programs);

/// "Copy 'name'": how messages name a program.
std::string programName(const core::ProgramNode &n);

} // namespace poplar::compiler
