// openReport: reads profile.pop through the SDK's profile reader, checks that every index in it
// points where it should (a damaged file must fail here, naming itself, not crash a reader
// later), and builds the objects every accessor hands out.
#include <pva/pva.hpp>

#include <filesystem>

#include <poplar/exceptions.hpp>
#include <tessera/profile/ProfileReader.hpp>

#include "ReportData.hpp"

namespace pva {

namespace tp = tessera::profile;

namespace {

[[noreturn]] void corrupt(const std::string &path, const std::string &what) {
  throw poplar::parse_error("'" + path + "' is not a valid Tessera profile report: " + what);
}

/// Steps that execute a compute set must name one that exists.
void checkSteps(const std::string &path, const tp::GraphProfile &g) {
  for (std::size_t i = 0; i < g.steps.size(); ++i) {
    const int cs = g.steps[i].computeSet;
    if (g.steps[i].kind == "Execute" &&
        (cs < 0 || static_cast<std::size_t>(cs) >= g.computeSets.size()))
      corrupt(path, "step " + std::to_string(i) + " executes compute set " + std::to_string(cs) +
                        " of " + std::to_string(g.computeSets.size()));
  }
}

/// Timeline events must name steps that do work; runs, programs and events that exist.
void checkExecution(const detail::ReportData &d) {
  const auto &e = d.execution;
  for (std::size_t i = 0; i < e.timeline.size(); ++i) {
    const auto step = e.timeline[i].step;
    if (step >= d.programOfStep.size() || !d.programOfStep[step])
      corrupt(d.path, "timeline event " + std::to_string(i) + " names step " +
                          std::to_string(step) + ", which does not exist or does no work");
  }
  for (std::size_t i = 0; i < e.programRuns.size(); ++i) {
    const auto &r = e.programRuns[i];
    if (r.program >= d.graph.programStart.size() || r.firstEvent > e.timeline.size() ||
        r.events > e.timeline.size() - r.firstEvent)
      corrupt(d.path, "run " + std::to_string(i) + " names program " + std::to_string(r.program) +
                          " or timeline events that were not recorded");
  }
}

} // namespace

namespace detail {

Report Access::report(std::shared_ptr<const ReportData> data) {
  Report r;
  r.compilation_.data_ = data;
  r.execution_.data_ = data;
  r.data_ = std::move(data);
  return r;
}

} // namespace detail

Report openReport(const std::string &profilePath) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string path = fs::is_directory(profilePath, ec)
                               ? (fs::path(profilePath) / tp::kProfilePopFile).string()
                               : profilePath;
  tp::ProfileReport file = tp::readProfileReport(path);

  using detail::Access;
  auto d = std::make_shared<detail::ReportData>();
  d->path = path;
  d->graph = std::move(file.graph);
  if (file.execution)
    d->execution = std::move(*file.execution);
  const auto &g = d->graph;
  d->version = Access::version(g.sdkVersion);
  d->target = Access::target(g.target);
  d->graphCounts = Access::graph(g);
  for (std::size_t t = 0; t < g.tiles.size(); ++t)
    d->tiles.push_back(Access::tile(static_cast<unsigned>(t), g.tiles[t]));
  checkSteps(path, g);
  d->programOfStep.resize(g.steps.size());
  for (std::size_t i = 0; i < g.steps.size(); ++i) {
    d->programOfStep[i] = Access::program(g, i);
    if (d->programOfStep[i])
      d->programs.push_back(d->programOfStep[i]);
  }
  checkExecution(*d);
  return Access::report(std::move(d));
}

} // namespace pva
