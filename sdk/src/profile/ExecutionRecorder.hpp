// Counts the steps an Engine runs and, when instrumenting, their measured host time; turns
// that into an execution profile. Only the Engine's run thread touches it.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include <tessera/profile/Profile.hpp>

namespace poplar::profile {

class ExecutionRecorder {
public:
  using Clock = std::chrono::steady_clock;
  /// Timeline events kept (the first ones); counts and totals cover every execution.
  static constexpr std::size_t kMaxTimelineEvents = 100000;

  ExecutionRecorder(std::size_t numSteps, bool measureHostTime)
      : runs_(numSteps), measure_(measureHostTime) {}

  bool measuresHostTime() const { return measure_; }
  /// Estimated cycles of each step (set again once vertex types' estimates are known).
  void setStepCycles(std::vector<std::uint64_t> cycles) { stepCycles_ = std::move(cycles); }

  /// An Engine::run of program `program` starts; its steps are the ones recorded until the next.
  void beginRun(unsigned program);
  /// Step `step` ran from `begin` to `end` (both ignored unless measuring host time).
  void record(std::size_t step, Clock::time_point begin, Clock::time_point end);
  tessera::profile::ExecutionProfile profile() const;

private:
  /// Ends `run` where the clocks stand.
  void close(tessera::profile::ProgramRun &run) const;

  std::vector<tessera::profile::StepRun> runs_;
  std::vector<tessera::profile::TimelineEvent> timeline_;
  std::vector<tessera::profile::ProgramRun> programRuns_;
  bool runOpen_ = false; ///< The last of programRuns_ is still running (not closed).
  bool programRunsTruncated_ = false;
  std::vector<std::uint64_t> stepCycles_;
  bool measure_;
  bool started_ = false;
  bool truncated_ = false;
  std::uint64_t numRuns_ = 0;
  std::uint64_t cycleClock_ = 0;
  std::uint64_t hostTotal_ = 0;
  Clock::time_point origin_;
};

} // namespace poplar::profile
