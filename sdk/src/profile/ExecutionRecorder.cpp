#include "profile/ExecutionRecorder.hpp"

namespace poplar::profile {

void ExecutionRecorder::beginRun(unsigned program) {
  ++numRuns_;
  if (!started_) {
    origin_ = Clock::now();
    started_ = true;
  }
  if (runOpen_)
    close(programRuns_.back());
  // Bounded like the timeline: a training loop runs millions of times.
  runOpen_ = programRuns_.size() < kMaxTimelineEvents;
  if (runOpen_)
    programRuns_.push_back({program, timeline_.size(), 0, cycleClock_, 0});
  else
    programRunsTruncated_ = true;
}

void ExecutionRecorder::close(tessera::profile::ProgramRun &run) const {
  run.events = timeline_.size() - run.firstEvent;
  run.cycles = cycleClock_ - run.startCycle;
}

void ExecutionRecorder::record(std::size_t step, Clock::time_point begin, Clock::time_point end) {
  const std::uint64_t cycles = step < stepCycles_.size() ? stepCycles_[step] : 0;
  std::uint64_t hostNs = 0, hostStart = 0;
  if (measure_) {
    using std::chrono::duration_cast;
    using std::chrono::nanoseconds;
    hostNs = static_cast<std::uint64_t>(duration_cast<nanoseconds>(end - begin).count());
    hostStart = static_cast<std::uint64_t>(duration_cast<nanoseconds>(begin - origin_).count());
  }
  auto &r = runs_[step];
  r.step = static_cast<unsigned>(step);
  ++r.runs;
  r.estimatedCycles += cycles;
  r.hostNs += hostNs;
  hostTotal_ += hostNs;
  if (timeline_.size() < kMaxTimelineEvents)
    timeline_.push_back({static_cast<unsigned>(step), cycleClock_, cycles, hostStart, hostNs});
  else
    truncated_ = true;
  cycleClock_ += cycles;
}

tessera::profile::ExecutionProfile ExecutionRecorder::profile() const {
  tessera::profile::ExecutionProfile p;
  p.runs = numRuns_;
  p.instrumented = measure_;
  for (const auto &r : runs_)
    if (r.runs)
      p.steps.push_back(r);
  p.timeline = timeline_;
  p.timelineTruncated = truncated_;
  p.totalEstimatedCycles = cycleClock_;
  p.totalHostNs = hostTotal_;
  p.programRuns = programRuns_;
  if (runOpen_)
    close(p.programRuns.back());
  p.programRunsTruncated = programRunsTruncated_;
  return p;
}

} // namespace poplar::profile
