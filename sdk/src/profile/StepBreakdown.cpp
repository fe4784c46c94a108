#include <tessera/profile/StepBreakdown.hpp>

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <map>

#include "core/JsonQuote.hpp"

namespace tessera::profile {
namespace {

std::string jsonString(const std::string &s) { return poplar::core::jsonQuoted(s); }

bool contains(const std::string &s, const char *part) { return s.find(part) != std::string::npos; }

std::string microseconds(double ns) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3f", ns / 1000.0);
  return text;
}

} // namespace

std::string stepKindOf(const GraphProfile &graph, std::size_t step) {
  if (step >= graph.steps.size())
    return "control";
  const Step &s = graph.steps[step];
  if (s.kind == "Copy")
    return "copy";
  if (s.kind == "StreamIn" || s.kind == "StreamOut" || s.kind == "RemoteIn" ||
      s.kind == "RemoteOut")
    return "stream";
  if (s.kind == "CrossReplica")
    return "collective";
  if (s.kind != "Execute" || s.computeSet < 0 ||
      std::size_t(s.computeSet) >= graph.computeSets.size())
    return "control";
  // The vertex type doing most of the compute set's work (by count) says what it is.
  const auto &types = graph.computeSets[std::size_t(s.computeSet)].vertexTypes;
  const auto top = std::max_element(types.begin(), types.end(),
                                    [](const auto &a, const auto &b) { return a.count < b.count; });
  const std::string type = top == types.end() ? "" : top->type;
  if (contains(type, "poplin::MatMul") || contains(type, "Gemm"))
    return contains(s.name, "conv") ? "conv" : "matmul";
  if (contains(type, "poplin::"))
    return "conv";
  if (contains(type, "popops::MapExpr") || contains(type, "popops::Cast") ||
      contains(type, "popops::ScaledAdd"))
    return contains(s.name, "bn/") || contains(s.name, "norm") ? "norm" : "map";
  if (contains(type, "popnn::"))
    return "norm";
  if (contains(type, "popops::Reduce"))
    return contains(s.name, "bn/") || contains(s.name, "norm") ? "norm" : "reduce";
  return "other compute";
}

std::string layerOf(const std::string &stepName, unsigned depth) {
  if (stepName.empty())
    return "(unnamed)";
  std::size_t at = 0;
  for (unsigned d = 0; d < std::max(1u, depth); ++d) {
    const std::size_t slash = stepName.find('/', at);
    if (slash == std::string::npos)
      return stepName;
    at = slash + 1;
  }
  return stepName.substr(0, at - 1);
}

std::vector<BreakdownRow> hostTimeBreakdown(const GraphProfile &graph, const ExecutionProfile &exec,
                                            bool byLayer, unsigned depth) {
  std::map<std::string, BreakdownRow> rows;
  std::uint64_t total = 0;
  for (const StepRun &r : exec.steps) {
    const std::string name = r.step < graph.steps.size() ? graph.steps[r.step].name : "";
    const std::string key = byLayer ? layerOf(name, depth) : stepKindOf(graph, r.step);
    BreakdownRow &row = rows[key];
    row.key = key;
    row.hostNs += r.hostNs;
    row.runs += r.runs;
    row.estimatedCycles += r.estimatedCycles;
    total += r.hostNs;
  }
  std::vector<BreakdownRow> out;
  for (auto &[key, row] : rows) {
    row.share = total ? double(row.hostNs) / double(total) : 0.0;
    out.push_back(row);
  }
  std::stable_sort(out.begin(), out.end(), [](const BreakdownRow &a, const BreakdownRow &b) {
    return a.hostNs > b.hostNs;
  });
  if (!exec.instrumented)
    out.clear();
  return out;
}

void printStepBreakdown(std::ostream &out, const GraphProfile &graph, const ExecutionProfile &exec,
                        unsigned topLayers, unsigned depth) {
  if (!exec.instrumented) {
    out << "no host times: the engine ran without debug.instrument\n";
    return;
  }
  std::ios format(nullptr); // the caller's stream keeps its own number format
  format.copyfmt(out);
  auto table = [&](const char *title, const std::vector<BreakdownRow> &rows, std::size_t limit) {
    out << title << "\n";
    std::size_t shown = 0;
    for (const BreakdownRow &r : rows) {
      if (shown++ == limit)
        break;
      out << "  " << std::left << std::setw(34) << r.key << std::right << std::setw(10)
          << std::fixed << std::setprecision(1) << double(r.hostNs) / 1e6 << " ms " << std::setw(6)
          << std::setprecision(1) << 100.0 * r.share << " %  " << std::setw(8) << r.runs
          << " runs  " << std::setw(12) << r.estimatedCycles << " est. cycles\n";
    }
    if (rows.size() > limit)
      out << "  … " << rows.size() - limit << " more\n";
  };
  out << "host time of " << exec.runs << " Engine::run calls: " << std::fixed
      << std::setprecision(1) << double(exec.totalHostNs) / 1e6 << " ms measured\n";
  table("by kind:", hostTimeBreakdown(graph, exec, false), 100);
  table("by layer:", hostTimeBreakdown(graph, exec, true, depth), topLayers);
  out.copyfmt(format);
}

void writeChromeTrace(std::ostream &out, const GraphProfile &graph, const ExecutionProfile &exec) {
  const double nsPerCycle = graph.target.clockHz > 0 ? 1e9 / graph.target.clockHz : 1.0;
  out << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  bool first = true;
  auto event = [&](const std::string &json) {
    out << (first ? "" : ",\n") << json;
    first = false;
  };
  auto meta = [&](int tid, const char *name) {
    event(std::string("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":") +
          std::to_string(tid) + ",\"args\":{\"name\":" + jsonString(name) + "}}");
  };
  event("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"name\":"
        "\"Tessera engine\"}}");
  meta(1, "programs");
  meta(2, "host");
  meta(3, "IPU (estimated)");
  // Program runs: from their first step's start to their last step's end on the host clock.
  for (const ProgramRun &run : exec.programRuns) {
    if (run.events == 0 || run.firstEvent + run.events > exec.timeline.size())
      continue;
    const TimelineEvent &a = exec.timeline[run.firstEvent];
    const TimelineEvent &b = exec.timeline[run.firstEvent + run.events - 1];
    event("{\"name\":" + jsonString("program " + std::to_string(run.program)) +
          ",\"cat\":\"program\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":" +
          microseconds(double(a.hostStartNs)) +
          ",\"dur\":" + microseconds(double(b.hostStartNs + b.hostNs - a.hostStartNs)) + "}");
  }
  for (const TimelineEvent &e : exec.timeline) {
    const std::string name = e.step < graph.steps.size() ? graph.steps[e.step].name : "";
    const std::string common = "{\"name\":" + jsonString(name.empty() ? "step" : name) +
                               ",\"cat\":" + jsonString(stepKindOf(graph, e.step)) +
                               ",\"ph\":\"X\",\"pid\":1,";
    const std::string args = ",\"args\":{\"step\":" + std::to_string(e.step) +
                             ",\"estimatedCycles\":" + std::to_string(e.cycles) + "}}";
    event(common + "\"tid\":2,\"ts\":" + microseconds(double(e.hostStartNs)) +
          ",\"dur\":" + microseconds(double(e.hostNs)) + args);
    event(common + "\"tid\":3,\"ts\":" + microseconds(double(e.startCycle) * nsPerCycle) +
          ",\"dur\":" + microseconds(double(e.cycles) * nsPerCycle) + args);
  }
  out << "\n]}\n";
}

} // namespace tessera::profile
