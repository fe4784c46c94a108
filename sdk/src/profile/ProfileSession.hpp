// An Engine's profiling state: its graph profile (priced by the cost model), the execution
// recorder, and the autoReport files it writes.
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <poplar/OptionFlags.hpp>
#include <tessera/profile/Profile.hpp>

#include "compiler/CompiledGraph.hpp"
#include "profile/ExecutionRecorder.hpp"

namespace poplar::profile {

/// The engine options that drive profiling (autoReport.*, debug.instrument).
struct ProfileOptions {
  bool graphProfile = false;     ///< autoReport.outputGraphProfile
  bool executionProfile = false; ///< autoReport.outputExecutionProfile
  bool instrument = false;       ///< debug.instrument: measure host time per step
  std::string directory = ".";   ///< autoReport.directory
};

class ProfileSession {
public:
  explicit ProfileSession(ProfileOptions options) : options_(std::move(options)) {}

  /// A compiled graph: `description` is the graph as describeGraph saw it (executables carry
  /// it). Called once compiled (also when it does not fit) or with a deserialized executable.
  /// `plan` must outlive the session. Estimates are priced when first needed.
  void compiled(tessera::profile::GraphProfile description, const compiler::CompiledGraph &plan);
  /// Compilation threw `what`: writes the graph profile when one was requested, so the
  /// overflow can be inspected. Never throws.
  void compileFailed(const std::string &what) noexcept;
  /// The engine was loaded: the vertex classes' own estimates (per object, in vertex object
  /// order; they need constructed objects) replace the cost model's defaults; writes the graph
  /// profile when requested.
  void loaded(const compiler::CompiledGraph &plan,
              std::vector<std::optional<std::uint64_t>> typeEstimates);
  /// Null unless an execution profile or instrumentation was asked for.
  ExecutionRecorder *recorder() { return recorder_.get(); }
  /// A run finished: writes the execution profile (and report) when requested.
  void runFinished();

  const tessera::profile::GraphProfile &graph() const {
    ensurePriced();
    return graph_;
  }
  std::optional<tessera::profile::ExecutionProfile> execution() const;
  /// The cost model's cycles of each step of the plan (0 for control steps), priced as the
  /// profile prices them.
  std::vector<std::uint64_t> stepCycles() const;
  /// Engine::resetExecutionProfile: forgets every run recorded so far.
  void resetExecution();
  /// Estimated cycles of one run of `program` without running it (ProgramCycles.hpp).
  std::uint64_t programCycles(std::size_t program) const;
  /// Engine::printProfileSummary: options {"showExecutionSteps", "true"|"false"}; an unknown
  /// option throws invalid_option naming the nearest valid one.
  void printSummary(std::ostream &out, const OptionFlags &opts) const;

private:
  /// Prices compute sets and steps from per-object cycles, once per change (a session whose
  /// profile nobody reads never pays for it).
  void ensurePriced() const;
  void updateRecorder();
  void writeGraphFiles() const;
  void writeReport() const;
  /// profile.pop: the graph profile and `exec` (null before the first run), rewritten after
  /// every run so it always holds both.
  void writeProfilePop(const tessera::profile::ExecutionProfile *exec) const;

  ProfileOptions options_;
  mutable tessera::profile::GraphProfile graph_;
  mutable bool priced_ = false;
  bool described_ = false;
  const compiler::CompiledGraph *plan_ = nullptr;
  std::optional<std::vector<std::optional<std::uint64_t>>> typeEstimates_;
  std::unique_ptr<ExecutionRecorder> recorder_;
};

} // namespace poplar::profile
