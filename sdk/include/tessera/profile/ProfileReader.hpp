// Tessera extension: reading, writing and presenting profile files.
//
// The Engine writes, in `autoReport.directory` (default: the working directory):
//   graph_profile.pb / graph_profile.json          (autoReport.outputGraphProfile)
//   execution_profile.pb / execution_profile.json  (autoReport.outputExecutionProfile)
//   report.html                                    (either; one self-contained page)
//   profile.pop                                    (either: both profiles in one file, the name
//                                                   Poplar uses; Tessera's own format, read by pva)
// Every file is written under a temporary name and renamed into place, so a reader never sees
// half a file.
// `autoReport.all` turns on both profiles and `debug.instrument` (measured host times).
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>

#include <tessera/profile/Profile.hpp>

namespace tessera {
namespace profile {

/// File names inside the report directory.
constexpr const char *kGraphProfileFile = "graph_profile.pb";
constexpr const char *kExecutionProfileFile = "execution_profile.pb";
constexpr const char *kHtmlReportFile = "report.html";
constexpr const char *kProfilePopFile = "profile.pop";

/// Reads a graph profile written by the Engine (binary Protocol Buffers). Throws
/// `poplar::parse_error` naming the file when it is missing, truncated or not a profile.
GraphProfile readGraphProfile(const std::string &path);
/// Reads an execution profile; errors as readGraphProfile.
ExecutionProfile readExecutionProfile(const std::string &path);

#if __cplusplus >= 201703L
/// Reads profile.pop (a `Report` message); errors as readGraphProfile. C++17 and later only
/// (ProfileReport holds a std::optional).
ProfileReport readProfileReport(const std::string &path);
#endif

/// Writes `p` as binary Protocol Buffers to `path`; throws `poplar::runtime_error` naming the
/// file when it cannot be written.
void writeGraphProfile(const GraphProfile &p, const std::string &path);
void writeExecutionProfile(const ExecutionProfile &p, const std::string &path);
/// Writes profile.pop: `graph` and, when not null, `exec`.
void writeProfileReport(const GraphProfile &graph, const ExecutionProfile *exec,
                        const std::string &path);

/// The proto3 JSON rendering (pretty-printed).
std::string toJson(const GraphProfile &p);
std::string toJson(const ExecutionProfile &p);

/// What printSummary shows beyond the always-present sections.
struct SummaryOptions {
  bool showExecutionSteps = false;
};

/// The text summary `Engine::printProfileSummary` prints, in Poplar's sections and order:
/// "Target:", "Graph:" (with compute sets' estimated cycles, measured time when `exec` has it,
/// and exchange bytes), "Memory Usage:" (totals with and without gaps, per-tile spread and
/// histogram, largest variables) and "Execution:" (when `exec` is given or showExecutionSteps
/// asks for the steps). `exec` may be null.
void printSummary(std::ostream &out, const GraphProfile &graph, const ExecutionProfile *exec,
                  const SummaryOptions &options = {});
/// The `n` compute sets with the most estimated cycles (per execution × executions when
/// `exec` is given), most expensive first.
void printTopComputeSets(std::ostream &out, const GraphProfile &graph, const ExecutionProfile *exec,
                         std::size_t n);
/// One line per tile that uses memory: tile, variables, vertex state, exchange, padding, total.
void printTileMemoryTable(std::ostream &out, const GraphProfile &graph);
/// Differences between two graph profiles: memory totals, compute set cycles, exchange bytes.
void printDiff(std::ostream &out, const GraphProfile &before, const GraphProfile &after);

/// Writes the self-contained HTML report (inline CSS, JavaScript and SVG; no network): per-tile
/// memory, memory in use per step, and the execution timeline. `exec` may be null.
void writeHtmlReport(const std::string &path, const GraphProfile &graph,
                     const ExecutionProfile *exec);

} // namespace profile
} // namespace tessera
