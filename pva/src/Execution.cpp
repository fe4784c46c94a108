// The execution side of a report: steps (timeline events of the execution profile) and runs.
// Objects are made on demand from the shared data, so a report with 100,000 steps costs
// nothing until they are asked for.
#include <pva/pva.hpp>

#include "ReportData.hpp"

namespace pva {

namespace detail {

ExecutionStep Access::step(const std::shared_ptr<const ReportData> &data, std::size_t event) {
  ExecutionStep s;
  s.data_ = data;
  s.event_ = event;
  return s;
}

Run Access::run(const std::shared_ptr<const ReportData> &data, std::size_t run) {
  Run r;
  r.data_ = data;
  r.run_ = run;
  return r;
}

IpuStep Access::ipuStep(unsigned ipu, std::uint64_t from, std::uint64_t to) {
  IpuStep s;
  s.ipu_ = ipu;
  s.cyclesFrom_ = from;
  s.cyclesTo_ = to;
  return s;
}

Cycles Access::cycles(std::uint64_t value) {
  Cycles c;
  c.value_ = value;
  return c;
}

} // namespace detail

using detail::Access;

namespace {

const tessera::profile::TimelineEvent &event(const detail::ReportData &d, std::size_t i) {
  return d.execution.timeline[i];
}

} // namespace

const std::shared_ptr<Program> &ExecutionStep::program() const {
  return data_->programOfStep[event(*data_, event_).step];
}

Cycles ExecutionStep::cyclesFrom() const {
  return Access::cycles(event(*data_, event_).startCycle);
}

Cycles ExecutionStep::cyclesTo() const {
  const auto &e = event(*data_, event_);
  return Access::cycles(e.startCycle + e.cycles);
}

std::uint64_t ExecutionStep::cycles() const { return event(*data_, event_).cycles; }

std::vector<IpuStep> ExecutionStep::ipus() const {
  const auto &e = event(*data_, event_);
  std::vector<IpuStep> out;
  for (unsigned ipu = 0; ipu < data_->target.numIPUs(); ++ipu)
    out.push_back(Access::ipuStep(ipu, e.startCycle, e.startCycle + e.cycles));
  return out;
}

std::uint64_t ExecutionStep::hostStartNanoseconds() const {
  return event(*data_, event_).hostStartNs;
}

std::uint64_t ExecutionStep::hostNanoseconds() const { return event(*data_, event_).hostNs; }

unsigned Run::program() const { return data_->execution.programRuns[run_].program; }

std::vector<ExecutionStep> Run::steps() const {
  const auto &r = data_->execution.programRuns[run_];
  std::vector<ExecutionStep> out;
  out.reserve(r.events);
  for (std::uint64_t i = 0; i < r.events; ++i)
    out.push_back(Access::step(data_, r.firstEvent + i));
  return out;
}

std::uint64_t Run::cyclesFrom() const { return data_->execution.programRuns[run_].startCycle; }

std::uint64_t Run::cyclesTo() const {
  const auto &r = data_->execution.programRuns[run_];
  return r.startCycle + r.cycles;
}

std::uint64_t Run::cycles() const { return data_->execution.programRuns[run_].cycles; }

std::vector<ExecutionStep> Execution::steps() const {
  std::vector<ExecutionStep> out;
  out.reserve(data_->execution.timeline.size());
  for (std::size_t i = 0; i < data_->execution.timeline.size(); ++i)
    out.push_back(Access::step(data_, i));
  return out;
}

std::vector<Run> Execution::runs() const {
  std::vector<Run> out;
  out.reserve(data_->execution.programRuns.size());
  for (std::size_t i = 0; i < data_->execution.programRuns.size(); ++i)
    out.push_back(Access::run(data_, i));
  return out;
}

std::uint64_t Execution::numRuns() const { return data_->execution.runs; }
std::uint64_t Execution::totalCycles() const { return data_->execution.totalEstimatedCycles; }
std::uint64_t Execution::totalHostNanoseconds() const { return data_->execution.totalHostNs; }
bool Execution::instrumented() const { return data_->execution.instrumented; }
bool Execution::stepsTruncated() const { return data_->execution.timelineTruncated; }
bool Execution::runsTruncated() const { return data_->execution.programRunsTruncated; }

} // namespace pva
