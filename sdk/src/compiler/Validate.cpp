// Compiler stage 1, validation: every object the programs name belongs to the graph, no
// function calls itself, and which compute sets and functions the programs use.
#include "compiler/Validate.hpp"

#include <set>

#include <poplar/exceptions.hpp>

#include "core/TensorData.hpp"

namespace poplar::compiler {

using core::ProgramNode;
using Kind = ProgramNode::Kind;

std::string programName(const ProgramNode &n) {
  static const char *const kNames[] = {"Sequence",
                                       "Execute",
                                       "Copy",
                                       "Copy (stream to tensor)",
                                       "Copy (tensor to stream)",
                                       "Repeat",
                                       "RepeatWhile",
                                       "If",
                                       "Switch",
                                       "Call",
                                       "PrintTensor",
                                       "WriteUndef",
                                       "Sync",
                                       "Abort",
                                       "AbortOnCondition",
                                       "CrossReplica",
                                       "cycleCount",
                                       "cycleStamp",
                                       "floating-point behaviour",
                                       "Copy (remote buffer to tensor)",
                                       "Copy (tensor to remote buffer)"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) ==
                static_cast<std::size_t>(Kind::RemoteFromDevice) + 1);
  std::string s = kNames[static_cast<int>(n.kind)];
  if (!n.name.empty())
    s += " '" + n.name + "'";
  return s;
}

namespace {

class UseFinder {
public:
  explicit UseFinder(const core::GraphData &g) : g_(g), fnState_(g.functions.size(), 0) {}

  void visit(const program::Program &p) {
    const ProgramNode &n = *p.node();
    ++use.references[&n];
    // A shared sub-program is checked once. Programs cannot contain themselves (Sequence::add
    // refuses cycles), so this walk always ends.
    if (!done_.insert(&n).second)
      return;
    check(n);
    for (const auto &c : n.children)
      visit(c);
  }

  ProgramUse use;

private:
  void requireTensor(const ProgramNode &n, const Tensor &t, const char *role) {
    if (t.valid() && t.data().graph != &g_)
      throw graph_program_compilation_error(programName(n) + ": its " + role + " " +
                                            core::describe(t) +
                                            " belongs to another graph than the Engine's");
  }

  void check(const ProgramNode &n) {
    requireTensor(n, n.src, n.kind == Kind::Copy ? "source" : "tensor");
    requireTensor(n, n.dst, "destination");
    switch (n.kind) {
    case Kind::Execute: {
      if (n.computeSet.graph() != &g_)
        throw graph_program_compilation_error(programName(n) + ": compute set " +
                                              std::to_string(n.computeSet.getId()) +
                                              " belongs to another graph than the Engine's");
      const unsigned id = n.computeSet.getId();
      if (seenCs_.insert(id).second)
        use.computeSets.push_back(id);
      break;
    }
    case Kind::StreamToDevice:
    case Kind::StreamFromDevice:
      if (n.stream.graph() != &g_)
        throw graph_program_compilation_error(programName(n) + ": stream '" + n.stream.handle() +
                                              "' belongs to another graph than the Engine's");
      break;
    case Kind::RemoteToDevice:
    case Kind::RemoteFromDevice:
      requireTensor(n, n.offset, "offset");
      if (n.remoteBuffer.graph() != &g_)
        throw graph_program_compilation_error(programName(n) + ": remote buffer '" +
                                              n.remoteBuffer.handle() +
                                              "' belongs to another graph than the Engine's");
      break;
    case Kind::Call: {
      if (n.function.graph() != &g_)
        throw graph_program_compilation_error(programName(n) +
                                              ": the function belongs to another graph");
      const unsigned f = n.function.getId();
      if (fnState_[f] == 1)
        throw control_program_error(programName(n) + ": function " + std::to_string(f) +
                                    " calls itself; recursion is not supported");
      if (fnState_[f] == 0) {
        fnState_[f] = 1;
        visit(g_.functions[f]);
        fnState_[f] = 2;
        use.functions.push_back(f);
      }
      break;
    }
    default:
      break;
    }
  }

  const core::GraphData &g_;
  std::vector<int> fnState_; // 0 unseen, 1 being visited, 2 done
  std::set<unsigned> seenCs_;
  std::set<const ProgramNode *> done_;
};

} // namespace

ProgramUse validatePrograms(const core::GraphData &graph,
                            const std::vector<program::Program> &programs) {
  UseFinder finder(graph);
  for (const auto &p : programs)
    finder.visit(p);
  return std::move(finder.use);
}

} // namespace poplar::compiler
