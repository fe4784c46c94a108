// Tessera extension: where the host time of instrumented runs went (engine option
// debug.instrument), grouped by kind of work and by layer, and the runs as a Chrome/Perfetto
// trace. The trainers print the breakdown for `--profile-steps N` and write the trace.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <tessera/profile/Profile.hpp>

namespace tessera {
namespace profile {

/// What kind of work step `step` is: "conv", "matmul", "map", "norm", "reduce", "other compute"
/// (Execute steps, by their compute set's vertex types), "copy", "stream", "collective" or
/// "control".
std::string stepKindOf(const GraphProfile &graph, std::size_t step);

/// The layer a step belongs to: the first `depth` components of its name's debug-context path
/// ("stage2/block1/b/conv/weightGrad/…" at depth 2 is "stage2/block1"); steps without a path
/// are "(unnamed)".
std::string layerOf(const std::string &stepName, unsigned depth);

struct BreakdownRow {
  std::string key;
  std::uint64_t hostNs = 0;
  std::uint64_t runs = 0;
  std::uint64_t estimatedCycles = 0;
  double share = 0; ///< of all measured host time
};

/// Host time of every step that ran, summed by stepKindOf (`byLayer` false) or by layerOf at
/// `depth`; largest first. Empty unless `exec` was instrumented.
std::vector<BreakdownRow> hostTimeBreakdown(const GraphProfile &graph, const ExecutionProfile &exec,
                                            bool byLayer, unsigned depth = 2);

/// The two tables (by kind, then the `topLayers` largest layers) as text.
void printStepBreakdown(std::ostream &out, const GraphProfile &graph, const ExecutionProfile &exec,
                        unsigned topLayers = 15, unsigned depth = 2);

/// The timeline as Chrome trace events (JSON; chrome://tracing and ui.perfetto.dev open it):
/// one complete ("X") event per step execution on the "host" track (measured time, µs since
/// the first run), the same steps on the "IPU (estimated)" track on the cost model's clock, and
/// one event per Engine::run on a "programs" track. Event names are the step names; the
/// category is stepKindOf.
void writeChromeTrace(std::ostream &out, const GraphProfile &graph, const ExecutionProfile &exec);

} // namespace profile
} // namespace tessera
