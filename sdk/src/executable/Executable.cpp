// poplar::Executable and poplar::compileGraph.
#include <poplar/Executable.hpp>

#include <poplar/exceptions.hpp>

#include "compiler/Compiler.hpp"
#include "executable/CompileExecutable.hpp"
#include "profile/GraphProfileBuilder.hpp"
#include "profile/ProfileSession.hpp"

namespace poplar {

Executable::Executable(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Executable::Executable(Executable &&) noexcept = default;
Executable &Executable::operator=(Executable &&) noexcept = default;
Executable::~Executable() = default;

Executable::Impl &Executable::impl() {
  if (!impl_)
    throw runtime_error("this Executable was moved from (it was given to an Engine or another "
                        "Executable)");
  return *impl_;
}
const Executable::Impl &Executable::impl() const { return const_cast<Executable *>(this)->impl(); }

void Executable::serialize(std::ostream &out) const { executable::write(impl(), out); }

Executable Executable::deserialize(std::istream &in) {
  return Executable(std::make_unique<Impl>(executable::read(in)));
}

Executable compileGraph(const Graph &graph, ArrayRef<program::Program> programs,
                        const OptionFlags &options, ProgressFunc progress, const DebugContext &) {
  return Executable(executable::compile(graph, programs.vec(), engine::parseEngineOptions(options),
                                        std::move(progress)));
}

} // namespace poplar

namespace poplar::executable {

void requireTopLevelGraph(const Graph &graph) {
  if (graph.tileBase() != 0 || graph.getTarget().getNumTiles() != graph.data().target.getNumTiles())
    throw graph_program_compilation_error(
        "an executable must be compiled from the top-level graph, not a virtual graph");
}

std::unique_ptr<Executable::Impl> compile(const Graph &graph,
                                          const std::vector<program::Program> &programs,
                                          const engine::EngineOptions &options,
                                          ProgressFunc progress) {
  requireTopLevelGraph(graph);
  auto exe = std::make_unique<Executable::Impl>();
  profile::ProfileSession failureReport(profileOptionsOf(options));
  compiler::CompileOptions co;
  co.allowOutOfMemory = options.allowOutOfMemory;
  co.progress = std::move(progress);
  // Described once memory is laid out, before the out-of-memory check: the executable carries
  // the description for its profiles, and a failed compile still has it to report.
  co.laidOut = [&](const compiler::CompiledGraph &plan) {
    exe->description = profile::describeGraph(graph.data(), plan);
    exe->defaultCycles = profile::defaultVertexCycles(graph.data(), plan);
    if (options.outputGraphProfile)
      failureReport.compiled(exe->description, exe->defaultCycles, plan);
  };
  try {
    exe->plan = compiler::compile(graph.data(), programs, co);
  } catch (const graph_memory_allocation_error &e) {
    failureReport.compileFailed(e.what()); // users must see what overflowed
    throw;
  }
  return exe;
}

} // namespace poplar::executable
