// One row of graph_scale_bench's table: what a child measured and how it ended, printed as an
// aligned table row or a CSV line.
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>

namespace graph_scale {

struct PointResult {
  std::string workload;
  unsigned size = 0;
  std::string status = "ok"; ///< "ok", "killed: over 12 GB", "failed: …"
  double wallSeconds = 0;
  double peakRssMiB = 0; ///< the child's ru_maxrss (wait4)
  // Measured inside the child (matrix-vector workloads only).
  std::optional<double> codeletSeconds, buildSeconds, compileSeconds, serializeSeconds;
  std::optional<double> warmStartSeconds, runSeconds, compilePeakMiB, serializePeakMiB;
  std::optional<double> maxRelativeError;
  std::optional<std::size_t> executableBytes, vertices;
};

/// The child's machine-readable line: "graph-scale-point key=value …".
std::string pointLine(const PointResult &r);
/// Fills `r` from the last such line in `childOutput`; false when there is none.
bool readPointLine(const std::string &childOutput, PointResult &r);
/// Fills build and compile seconds from a trainer's log: the sums over its graphs of
/// "…parameter tensors, graph X s" and "compiled in Y s" (engine construction and load).
void readTrainerLog(const std::string &log, PointResult &r);

void printTableHeader(std::ostream &out);
void printTableRow(std::ostream &out, const PointResult &r);

void printCsvHeader(std::ostream &out);
void printCsvRow(std::ostream &out, const PointResult &r);

} // namespace graph_scale
