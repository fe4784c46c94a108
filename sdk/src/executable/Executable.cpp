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

std::unique_ptr<Executable::Impl> Executable::release() {
  impl(); // the check
  return std::move(impl_);
}

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
  compiler::CompileOptions co;
  co.progress = std::move(progress);
  compiler::CompileResult compiled = compiler::compile(graph.data(), programs, co);
  exe->plan = std::move(compiled.plan);
  // Described now, while the graph is at hand: the executable carries it for its profiles.
  exe->description = profile::describeGraph(graph.data(), exe->plan);
  if (!compiled.outOfMemory.empty() && !options.allowOutOfMemory) {
    // Users must see what overflowed: the profile is written even though the compile fails.
    if (options.outputGraphProfile) {
      profile::ProfileSession report(profileOptionsOf(options));
      report.compiled(exe->description, exe->plan);
      report.compileFailed(compiled.outOfMemory);
    }
    throw graph_memory_allocation_error(compiled.outOfMemory);
  }
  return exe;
}

} // namespace poplar::executable
