#include "profile/ProfileSession.hpp"

#include "profile/ProgramCycles.hpp"

#include <filesystem>
#include <iostream>

#include <poplar/exceptions.hpp>
#include <poputil/OptionParsing.hpp>
#include <tessera/profile/ProfileReader.hpp>

#include "profile/GraphProfileBuilder.hpp"
#include "profile/ProfileFileWriter.hpp"

namespace poplar::profile {

namespace tp = tessera::profile;

namespace {

std::string inDirectory(const std::string &dir, const std::string &file) {
  return (std::filesystem::path(dir) / file).string();
}

void makeDirectory(const std::string &dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw runtime_error("autoReport.directory '" + dir + "' cannot be created: " + ec.message());
}

} // namespace

void ProfileSession::compiled(tp::GraphProfile description, const compiler::CompiledGraph &plan) {
  graph_ = std::move(description);
  plan_ = &plan;
  typeEstimates_.reset();
  priced_ = false;
  described_ = true;
  if (options_.executionProfile || options_.instrument) {
    recorder_ = std::make_unique<ExecutionRecorder>(plan.steps.size(), options_.instrument);
    updateRecorder();
  }
}

void ProfileSession::ensurePriced() const {
  if (priced_ || !plan_)
    return;
  const auto &plan = *plan_;
  std::vector<std::uint64_t> cycles(plan.vertexObjects.size());
  for (std::size_t i = 0; i < cycles.size(); ++i) {
    std::optional<std::uint64_t> fromType;
    if (typeEstimates_ && i < typeEstimates_->size())
      fromType = (*typeEstimates_)[i];
    cycles[i] = fromType.value_or(plan.defaultVertexCycles.at(i));
  }
  for (const auto &[object, estimate] : plan.perfEstimates) // Graph::setPerfEstimate wins
    cycles.at(object) = estimate;
  priceGraph(graph_, plan, cycles);
  graph_.hasVertexTypeEstimates = typeEstimates_.has_value();
  priced_ = true;
}

std::vector<std::uint64_t> ProfileSession::stepCycles() const {
  ensurePriced();
  std::vector<std::uint64_t> cycles;
  cycles.reserve(graph_.steps.size());
  for (const auto &s : graph_.steps)
    cycles.push_back(s.estimatedCycles);
  return cycles;
}

std::uint64_t ProfileSession::programCycles(std::size_t program) const {
  return staticProgramCycles(*plan_, stepCycles(), program);
}

void ProfileSession::resetExecution() {
  if (!recorder_)
    return;
  recorder_ = std::make_unique<ExecutionRecorder>(plan_->steps.size(), options_.instrument);
  updateRecorder();
}

void ProfileSession::updateRecorder() {
  if (!recorder_)
    return;
  recorder_->setStepCycles(stepCycles());
}

void ProfileSession::compileFailed(const std::string &what) noexcept {
  if (!options_.graphProfile || !described_)
    return;
  try {
    ensurePriced();
    graph_.error = what;
    writeGraphFiles();
    writeReport();
    writeProfilePop(nullptr);
  } catch (const std::exception &e) {
    std::cerr << "tessera: could not write the graph profile: " << e.what() << '\n';
  }
}

void ProfileSession::loaded(const compiler::CompiledGraph &plan,
                            std::vector<std::optional<std::uint64_t>> typeEstimates) {
  plan_ = &plan;
  typeEstimates_ = std::move(typeEstimates);
  priced_ = false;
  updateRecorder();
  if (options_.graphProfile) {
    writeGraphFiles();
    writeReport();
  }
  if (options_.graphProfile || options_.executionProfile)
    writeProfilePop(nullptr);
}

void ProfileSession::runFinished() {
  if (!options_.executionProfile || !recorder_)
    return;
  makeDirectory(options_.directory);
  const tp::ExecutionProfile exec = recorder_->profile();
  tp::writeExecutionProfile(exec, inDirectory(options_.directory, tp::kExecutionProfileFile));
  writeProfileFile(inDirectory(options_.directory, "execution_profile.json"), tp::toJson(exec));
  writeReport();
  writeProfilePop(&exec);
}

std::optional<tp::ExecutionProfile> ProfileSession::execution() const {
  if (!recorder_)
    return std::nullopt;
  return recorder_->profile();
}

void ProfileSession::writeGraphFiles() const {
  ensurePriced();
  makeDirectory(options_.directory);
  tp::writeGraphProfile(graph_, inDirectory(options_.directory, tp::kGraphProfileFile));
  writeProfileFile(inDirectory(options_.directory, "graph_profile.json"), tp::toJson(graph_));
}

void ProfileSession::writeReport() const {
  ensurePriced();
  makeDirectory(options_.directory);
  const auto exec = options_.executionProfile ? execution() : std::nullopt;
  tp::writeHtmlReport(inDirectory(options_.directory, tp::kHtmlReportFile), graph_,
                      exec ? &*exec : nullptr);
}

void ProfileSession::writeProfilePop(const tp::ExecutionProfile *exec) const {
  ensurePriced();
  makeDirectory(options_.directory);
  tp::writeProfileReport(graph_, exec, inDirectory(options_.directory, tp::kProfilePopFile));
}

void ProfileSession::printSummary(std::ostream &out, const OptionFlags &opts) const {
  tp::SummaryOptions summary;
  poputil::OptionSpec(
      "printProfileSummary",
      {{"showExecutionSteps", poputil::OptionHandler::createWithBool(summary.showExecutionSteps)}})
      .parse(opts);
  const auto exec = execution();
  ensurePriced();
  tp::printSummary(out, graph_, exec ? &*exec : nullptr, summary);
}

} // namespace poplar::profile
